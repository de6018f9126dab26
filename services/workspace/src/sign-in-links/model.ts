import mongoose from 'mongoose';
import { SIGN_IN_LINK_DELIVERIES, type Partition } from '@helpdesk/contracts';
import { tenancyPlugin } from '@helpdesk/kit';

/**
 * A one-time sign-in link of a member (docs/adr/0068), team-wide (docs/adr/0065). Only
 * the sha256 of its token is kept, and the token itself is made when the link is handed out (its
 * mail is sent, or an operator asks), replacing the stored hash.
 */
export interface SignInLinkDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  memberId: string;
  email: string;
  delivery: (typeof SIGN_IN_LINK_DELIVERIES)[number];
  tokenHash: string;
  expiresAt: Date;
  createdAt: Date;
  /** Set once, by the sign-in that used it (with the session it opened). */
  usedAt: Date | null;
  sessionId: string | null;
}

/** Links are removed a day after they expired (used or not): the events keep the trail. */
const KEPT_AFTER_EXPIRY_SECONDS = 24 * 60 * 60;

const signInLinkSchema = new mongoose.Schema<SignInLinkDoc>(
  {
    _id: { type: String, required: true },
    memberId: { type: String, required: true },
    email: { type: String, required: true },
    delivery: { type: String, enum: SIGN_IN_LINK_DELIVERIES, required: true },
    tokenHash: { type: String, required: true },
    expiresAt: { type: Date, required: true },
    createdAt: { type: Date, required: true },
    usedAt: { type: Date, default: null },
    sessionId: { type: String, default: null },
  },
  { collection: 'sign_in_links', versionKey: false, strict: 'throw' },
);
signInLinkSchema.plugin(tenancyPlugin);
signInLinkSchema.index({ teamId: 1, mode: 1, tokenHash: 1 }, { unique: true });
signInLinkSchema.index({ expiresAt: 1 }, { expireAfterSeconds: KEPT_AFTER_EXPIRY_SECONDS });

export type SignInLinkModel = mongoose.Model<SignInLinkDoc>;

export function signInLinkModel(conn: mongoose.Connection): SignInLinkModel {
  return (conn.models.SignInLink as SignInLinkModel | undefined) ?? conn.model<SignInLinkDoc>('SignInLink', signInLinkSchema);
}
