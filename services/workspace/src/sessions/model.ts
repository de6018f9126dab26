import mongoose from 'mongoose';
import { PARTITIONS } from '@helpdesk/contracts';
import { SESSION_END_REASONS, type SessionEndReason, type Partition } from '@helpdesk/contracts';
import { tenancyPlugin } from '@helpdesk/kit';

/**
 * A member's console session (docs/adr/0068), team-wide (docs/adr/0065): `mode` is the
 * scope, `partition` the partition the session works in. Only the sha256 of its token is kept (the
 * gateway drew the token and keeps it in the browser's cookie).
 */
export interface SessionDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  partition: Partition;
  memberId: string;
  tokenHash: string;
  signInLinkId: string;
  userAgent: string | null;
  createdAt: Date;
  /** Refreshed by the gateway's look-ups, at most once a minute: the idle timeout counts from it. */
  lastUsedAt: Date;
  /** The maximum age: the session ends then however much it is used. */
  expiresAt: Date;
  endedAt: Date | null;
  endReason: SessionEndReason | null;
}

/** Ended and expired sessions are kept 30 days past their maximum age (members see what signed in), then removed. */
const KEPT_AFTER_EXPIRY_SECONDS = 30 * 24 * 60 * 60;

const sessionSchema = new mongoose.Schema<SessionDoc>(
  {
    _id: { type: String, required: true },
    partition: { type: String, enum: [...PARTITIONS], required: true },
    memberId: { type: String, required: true },
    tokenHash: { type: String, required: true },
    signInLinkId: { type: String, required: true },
    userAgent: { type: String, default: null },
    createdAt: { type: Date, required: true },
    lastUsedAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
    endedAt: { type: Date, default: null },
    endReason: { type: String, enum: [...SESSION_END_REASONS, null], default: null },
  },
  { collection: 'sessions', versionKey: false, strict: 'throw' },
);
sessionSchema.plugin(tenancyPlugin);
sessionSchema.index({ teamId: 1, mode: 1, tokenHash: 1 }, { unique: true });
sessionSchema.index({ teamId: 1, mode: 1, memberId: 1, endedAt: 1 });
sessionSchema.index({ expiresAt: 1 }, { expireAfterSeconds: KEPT_AFTER_EXPIRY_SECONDS });

export type SessionModel = mongoose.Model<SessionDoc>;

export function sessionModel(conn: mongoose.Connection): SessionModel {
  return (conn.models.ConsoleSession as SessionModel | undefined) ?? conn.model<SessionDoc>('ConsoleSession', sessionSchema);
}
