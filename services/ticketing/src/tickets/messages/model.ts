import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import { SENDERS, type Sender, type Partition } from '@helpdesk/contracts';

export interface MessageDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  ticketId: string;
  content: string;
  sender: Sender;
  senderName: string | null;
  /** The member who wrote it (an agent message sent with a member's key); null or absent otherwise. */
  authorId?: string | null;
  isInternal: boolean;
  createdAt: Date;
  /** Position in the thread (1-based): the tiebreak for messages created in the same millisecond. */
  seq: number;
}

const messageSchema = new mongoose.Schema<MessageDoc>(
  {
    _id: { type: String, required: true },
    ticketId: { type: String, required: true },
    content: { type: String, required: true },
    sender: { type: String, enum: SENDERS, required: true },
    senderName: { type: String, default: null },
    authorId: { type: String, default: null },
    isInternal: { type: Boolean, required: true, default: false },
    createdAt: { type: Date, required: true },
    seq: { type: Number, required: true },
  },
  { collection: 'messages', versionKey: false, strict: 'throw' },
);
messageSchema.plugin(tenancyPlugin);
messageSchema.index({ teamId: 1, mode: 1, ticketId: 1, createdAt: 1, seq: 1 });

export type MessageModel = mongoose.Model<MessageDoc>;

export function messageModel(conn: mongoose.Connection): MessageModel {
  return (conn.models.Message as MessageModel | undefined) ?? conn.model<MessageDoc>('Message', messageSchema);
}

/** Chronological order: oldest first. */
export const CHRONOLOGICAL = { createdAt: 1, seq: 1 } as const;
