import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { Partition } from '@helpdesk/contracts';

/**
 * A widget conversation (docs/adr/0040): the ticket a visitor started, and the hash of the token that
 * opens it (the token itself is shown once, to the visitor's page). Its id is the ticket's.
 */
export interface WidgetConversationDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  /** SHA-256 (hex) of the conversation token. */
  tokenHash: string;
  customerId: string;
  /** As the visitor gave them (the customer record keeps its own name). */
  visitorName: string;
  visitorEmail: string;
  /** The visitor's email waits for its confirmation code (a `pending` customer was signed up). */
  awaitingEmailConfirmation: boolean;
  createdAt: Date;
}

const conversationSchema = new mongoose.Schema<WidgetConversationDoc>(
  {
    _id: { type: String, required: true },
    tokenHash: { type: String, required: true },
    customerId: { type: String, required: true },
    visitorName: { type: String, required: true },
    visitorEmail: { type: String, required: true },
    awaitingEmailConfirmation: { type: Boolean, required: true, default: false },
    createdAt: { type: Date, required: true },
  },
  { collection: 'widget_conversations', versionKey: false, strict: 'throw' },
);
conversationSchema.plugin(tenancyPlugin);
conversationSchema.index({ teamId: 1, mode: 1, _id: 1, tokenHash: 1 });

export type WidgetConversationModel = mongoose.Model<WidgetConversationDoc>;

export function widgetConversationModel(conn: mongoose.Connection): WidgetConversationModel {
  return (conn.models.WidgetConversation as WidgetConversationModel | undefined) ?? conn.model<WidgetConversationDoc>('WidgetConversation', conversationSchema);
}
