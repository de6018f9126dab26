import mongoose from 'mongoose';
import { PARTITIONS } from '@helpdesk/contracts';
import { INVITE_STATUSES, ROLES, type InviteSnapshot, type Role, type Partition } from '@helpdesk/contracts';
import { tenancyPlugin } from '@helpdesk/kit';

/** An invitation (under the team scope). Only the sha256 of its token is stored. */
export interface InviteDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  email: string;
  emailLower: string;
  role: Role;
  /** `pending` until accepted or revoked; an expired one stays `pending` here and is shown `expired`. */
  status: InviteSnapshot['status'];
  tokenHash: string;
  /** The partition of the key that invited: the new member's first key is made in it. */
  keyMode: Partition;
  invitedBy: string | null;
  /** The invitation message's outcome, reported by its sender. */
  message: { status: 'queued' | 'sent' | 'failed'; at: Date | null; error: string | null };
  expiresAt: Date;
  createdAt: Date;
  acceptedAt: Date | null;
  memberId: string | null;
  revokedAt: Date | null;
}

const inviteSchema = new mongoose.Schema<InviteDoc>(
  {
    _id: { type: String, required: true },
    email: { type: String, required: true },
    emailLower: { type: String, required: true },
    role: { type: String, enum: ROLES, required: true },
    status: { type: String, enum: INVITE_STATUSES, required: true },
    tokenHash: { type: String, required: true },
    keyMode: { type: String, enum: [...PARTITIONS], required: true },
    invitedBy: { type: String, default: null },
    message: {
      status: { type: String, enum: ['queued', 'sent', 'failed'], required: true, default: 'queued' },
      at: { type: Date, default: null },
      error: { type: String, default: null },
    },
    expiresAt: { type: Date, required: true },
    createdAt: { type: Date, required: true },
    acceptedAt: { type: Date, default: null },
    memberId: { type: String, default: null },
    revokedAt: { type: Date, default: null },
  },
  { collection: 'invites', versionKey: false, strict: 'throw' },
);
inviteSchema.plugin(tenancyPlugin);
inviteSchema.index({ teamId: 1, mode: 1, tokenHash: 1 }, { unique: true });
inviteSchema.index({ teamId: 1, mode: 1, status: 1, createdAt: -1 });
// At most one pending invite per email: two concurrent invites cannot both be inserted.
inviteSchema.index({ teamId: 1, mode: 1, emailLower: 1 }, { unique: true, partialFilterExpression: { status: 'pending' } });

export type InviteModel = mongoose.Model<InviteDoc>;

export function inviteModel(conn: mongoose.Connection): InviteModel {
  return (conn.models.Invite as InviteModel | undefined) ?? conn.model<InviteDoc>('Invite', inviteSchema);
}
