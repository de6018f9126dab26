import { z } from 'zod';
import type { CatalogEntry } from './read';

/**
 * The console's sign-in links and sessions (docs/adr/0068): their snapshots and events, spread into
 * EVENT_CATALOG in ../events.ts. Never a token nor its hash: a link's token is asked for by whoever
 * sends the mail, at send time; a session's token lives only in the browser's cookie.
 */
const iso = z.string().datetime();

/** Why a session ended: its member signed out, someone revoked it, the member was removed, or their role changed. */
export const SESSION_END_REASONS = ['signed_out', 'revoked', 'member_removed', 'role_changed'] as const;
export type SessionEndReason = (typeof SESSION_END_REASONS)[number];
/** How a link reaches its member: by mail (`POST /auth/sign-in-links`), or handed to an operator (the CLI, `npm start`'s banner). */
export const SIGN_IN_LINK_DELIVERIES = ['mail', 'operator'] as const;

export const signInLinkSnapshotSchema = z.object({
  id: z.string(),
  memberId: z.string(),
  email: z.string(),
  delivery: z.enum(SIGN_IN_LINK_DELIVERIES),
  expiresAt: iso,
  createdAt: iso,
});
export type SignInLinkSnapshot = z.infer<typeof signInLinkSnapshotSchema>;

export const sessionSnapshotSchema = z.object({
  id: z.string(),
  memberId: z.string(),
  /** The partition the session works in (`PATCH /auth/session` switches it). */
  mode: z.enum(['test', 'live']),
  /** The browser's `User-Agent` when it signed in (at most 300 characters), null without one. */
  userAgent: z.string().nullable(),
  createdAt: iso,
  /** When it was last used (kept to the minute). */
  lastUsedAt: iso,
  /** When it ends unless used again (the idle timeout after `lastUsedAt`, never after `expiresAt`). */
  idleExpiresAt: iso,
  /** When it ends however much it is used (its maximum age). */
  expiresAt: iso,
  endedAt: iso.nullable(),
  endReason: z.enum(SESSION_END_REASONS).nullable(),
});
export type SessionSnapshot = z.infer<typeof sessionSnapshotSchema>;

/**
 * A member's own sessions and links (docs/adr/0066), read as `GET /sessions` reads sessions: the member's
 * own keys see them, any other key needs `manage_members`.
 */
const ownSession = { permission: 'manage_members', member: (d: { session: SessionSnapshot }) => d.session.memberId } as const;

export const SESSION_EVENTS = {
  /**
   * A sign-in link was made for a member (`delivery: mail`: the notifications service mails it, asking
   * the workspace for its URL at send time with the internal `issueSignInLink`).
   */
  'sign_in_link.requested': {
    version: 1,
    read: { permission: 'manage_members', member: (d: { signInLink: SignInLinkSnapshot }) => d.signInLink.memberId },
    data: z.object({ signInLink: signInLinkSnapshotSchema, memberName: z.string(), teamName: z.string() }),
  },
  'session.created': { version: 1, read: ownSession, data: z.object({ session: sessionSnapshotSchema, signInLinkId: z.string() }) },
  'session.updated': { version: 1, read: ownSession, data: z.object({ session: sessionSnapshotSchema, changes: z.array(z.string()), previous: z.record(z.string(), z.unknown()) }) },
  'session.ended': { version: 1, read: ownSession, data: z.object({ session: sessionSnapshotSchema, reason: z.enum(SESSION_END_REASONS) }) },
} as const satisfies Record<string, CatalogEntry>;
