import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { Partition } from '@helpdesk/contracts';

/**
 * The open email confirmation of a `pending` customer signed up by the chat widget (docs/adr/0040):
 * the code's hash (never the code), its expiry, and the wrong codes tried. One per customer; a new
 * sign-up with the same unconfirmed email replaces it. Removed when the code is right.
 */
export interface ConfirmationDoc {
  /** The customer's id. */
  _id: string;
  teamId: string;
  mode: Partition;
  codeHash: string;
  attempts: number;
  expiresAt: Date;
}

const confirmationSchema = new mongoose.Schema<ConfirmationDoc>(
  {
    _id: { type: String, required: true },
    codeHash: { type: String, required: true },
    attempts: { type: Number, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'widget_confirmations', versionKey: false, strict: 'throw' },
);
confirmationSchema.plugin(tenancyPlugin);
confirmationSchema.index({ teamId: 1, mode: 1, _id: 1 });

export type ConfirmationModel = mongoose.Model<ConfirmationDoc>;

export function confirmationModel(conn: mongoose.Connection): ConfirmationModel {
  return (conn.models.WidgetConfirmation as ConfirmationModel | undefined) ?? conn.model<ConfirmationDoc>('WidgetConfirmation', confirmationSchema);
}
