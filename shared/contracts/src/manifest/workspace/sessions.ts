import { z } from 'zod';
import { partitionSchema } from '../../partition';
import { sessionSnapshotSchema } from '../../catalog/workspace';
import { SUBSCRIPTION_STATUSES } from '../../catalog/workspace';
import { PERMISSIONS, ROLES } from '../../permissions';
import { defineOperations, deletedSchema } from '../operation';

/**
 * Sign-in for people and the console's sessions (docs/adr/0068). A member asks for a one-time link by
 * email, the console posts its token to `POST /auth/sessions`, and the answer sets an HttpOnly
 * SameSite=Strict cookie that works like a secret key of that member (their role's permissions), in
 * one partition at a time. Writes made with the cookie need `X-CSRF-Token` and a same-origin `Origin`.
 * The gateway answers the `/auth/…` operations (it sets and clears the cookie); the workspace service
 * keeps links and sessions, beside the members they belong to.
 */

/** A sign-in link works this long, once. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
/** A session ends when unused this long … */
export const SESSION_IDLE_TIMEOUT_MS = 24 * 60 * 60_000;
/** … and at this age, however much it is used. */
export const SESSION_MAX_AGE_MS = 7 * 24 * 60 * 60_000;
/** Sign-in links asked for one email address, and from one client address, per window (then 429 `rate_limit_exceeded`). */
export const SIGN_IN_LINKS_PER_ADDRESS = 5;
export const SIGN_IN_LINKS_PER_CLIENT = 20;
/** Sign-in attempts (`POST /auth/sessions`) from one client address per window. */
export const SIGN_INS_PER_CLIENT = 30;
export const SIGN_IN_LIMIT_WINDOW_MS = 15 * 60_000;

/** The session cookie's name, and the header a write made with it carries its CSRF token in. */
export const SESSION_COOKIE = 'helpdesk_session';
export const CSRF_HEADER = 'X-CSRF-Token';

/** `hdsil_` + the team's UUID without dashes + `_` + 40 base62: the team is known before a look-up (like an invite's). */
export const SIGN_IN_TOKEN_RE = /^hdsil_([0-9a-f]{32})_([A-Za-z0-9]{40})$/;
/** A session cookie's value: `hdses_` + the team's UUID without dashes + `_` + 43 base62 (~256 bits). */
export const SESSION_TOKEN_RE = /^hdses_([0-9a-f]{32})_([A-Za-z0-9]{43})$/;
/** `0123…cdef` (32 hex) → the UUID with its dashes. */
export const uuidOfHex = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

const emailField = z.email().max(254);

export const requestSignInLinkBody = z.strictObject({
  email: emailField,
  /** Only this team's link (a person may be a member of several teams: without it, one mail per team). */
  teamId: z.uuid().optional(),
});
export type RequestSignInLinkInput = z.output<typeof requestSignInLinkBody>;
export const signInLinkRequestSchema = z
  .object({
    object: z.literal('sign_in_link_request'),
    email: z.string(),
    /** How long a mailed link works. */
    expiresInSeconds: z.number().int(),
  })
  .meta({ id: 'SignInLinkRequest' });

export const signInBody = z.strictObject({
  token: z.string().min(1).max(200),
  /** The partition the session starts in (default `live`; `PATCH /auth/session` switches it later). */
  mode: partitionSchema.optional().default('live'),
});
export type SignInInput = z.output<typeof signInBody>;

/** A session as listed: never its token. `current`: the session making the call. */
export const sessionSchema = z
  .object({ object: z.literal('session') })
  .extend(sessionSnapshotSchema.omit({ endedAt: true, endReason: true }).shape)
  .extend({ current: z.boolean() })
  .meta({ id: 'Session' });

/** The caller's own session: who, which team, what they may do, and the CSRF token its writes carry. */
export const currentSessionSchema = sessionSchema
  .extend({
    teamId: z.uuid(),
    permissions: z.array(z.enum(PERMISSIONS)),
    /** Send it as `X-CSRF-Token` with every POST, PATCH and DELETE made with the cookie; any token this session was given works. */
    csrfToken: z.string(),
    member: z.object({ id: z.string(), name: z.string(), email: z.string(), role: z.enum(ROLES) }),
    team: z.object({ id: z.uuid(), name: z.string(), slug: z.string() }),
  })
  .meta({ id: 'CurrentSession' });

export const updateSessionBody = z.strictObject({ mode: partitionSchema });
export const listSessionsQuery = z.strictObject({
  /** Another member's sessions (`mem_…`): needs `manage_members`. Default: the caller's own member. */
  memberId: z.string().regex(/^mem_[A-Za-z0-9]{8,64}$/, { message: 'must be a member id (mem_…)' }).optional(),
});
export type ListSessionsQuery = z.output<typeof listSessionsQuery>;
/** What a sign-in link's token can be refused with. */
export const SIGN_IN_LINK_ERRORS = ['sign_in_link_invalid', 'sign_in_link_expired', 'sign_in_link_used'] as const;


const sessions = { service: 'workspace', tag: 'Sign-in and sessions', keys: 'staff' } as const;

/** Members' sessions, kept by the workspace service beside the members. */
export const WORKSPACE_SESSIONS = defineOperations({
  listSessions: {
    ...sessions,
    method: 'GET',
    path: '/teams/{teamId}/sessions',
    summary: "List a member's sessions",
    description:
      "The open sessions of the caller's member, most recently used first; `memberId` names another member's, which needs " +
      '`manage_members` (403 otherwise; 404 for no such member). A key that belongs to no member lists none unless it names one. ' +
      'Not paginated: a member has few sessions at a time (docs/adr/0068).',
    permission: null,
    params: { teamId: 'team' },
    query: listSessionsQuery,
    success: { status: 200, data: z.array(sessionSchema), shape: 'envelope' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },
  revokeSession: {
    ...sessions,
    method: 'DELETE',
    path: '/teams/{teamId}/sessions/{sessionId}',
    summary: 'Revoke a session',
    description:
      "Ends a session at once (the gateway refuses its cookie within 2 seconds): one of the caller's member's own, or any member's " +
      'with `manage_members` (403 otherwise). An ended or unknown session is 404. Emits `session.ended` (reason `revoked`).',
    permission: null,
    params: { teamId: 'team', sessionId: 'session' },
    success: { status: 200, data: deletedSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
});

// ---------- internal ----------

/** What the gateway keeps about a session for a few seconds (docs/adr/0068): the session, its member's role, the team. */
export const sessionAccessSchema = z.object({
  session: sessionSnapshotSchema,
  member: z.object({ id: z.string(), name: z.string(), email: z.string(), role: z.enum(ROLES), permissions: z.array(z.enum(PERMISSIONS)) }),
  team: z.object({ name: z.string(), slug: z.string(), subscriptionStatus: z.enum(SUBSCRIPTION_STATUSES).optional() }),
});
export type SessionAccess = z.infer<typeof sessionAccessSchema>;
const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, { message: 'must be a sha256 hex digest' });
const signInLinkUrlSchema = z.object({ url: z.string(), token: z.string(), expiresAt: z.string().datetime() });

const internal = { service: 'workspace', tag: 'Sign-in and sessions', keys: 'secret', internal: true } as const;

/**
 * Asked by the gateway (sign-in, each session's look-up), the notifications service (a link's URL when
 * its mail is sent) and operators (a link without mail). Never a session token: the gateway sends its hash.
 */
export const WORKSPACE_SESSIONS_INTERNAL = defineOperations({
  requestSignInLinks: {
    ...internal,
    method: 'POST',
    path: '/internal/sign-in-links',
    summary: 'Makes a mailed sign-in link for each membership of this email (in `teamId` only when given); answers how many',
    permission: null,
    params: {},
    body: requestSignInLinkBody,
    success: { status: 200, data: z.object({ count: z.number().int() }), shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid'],
  },
  createOperatorSignInLink: {
    ...internal,
    method: 'POST',
    path: '/internal/sign-in-links/operator',
    summary: "A sign-in link for the token's team's member with this email (or the owner), handed to the operator instead of mailed",
    permission: null,
    params: {},
    body: z.strictObject({ email: emailField.optional() }),
    success: { status: 201, data: signInLinkUrlSchema.extend({ memberId: z.string() }), shape: 'envelope' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },
  issueSignInLink: {
    ...internal,
    method: 'POST',
    path: '/internal/sign-in-links/{signInLinkId}/link',
    summary: "An unused link's URL with a new token (any earlier one stops working); for its mail, at send time. 404 when used or expired",
    permission: null,
    params: { signInLinkId: 'signInLink' },
    success: { status: 201, data: signInLinkUrlSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  exchangeSignInLink: {
    ...internal,
    method: 'POST',
    path: '/internal/sessions',
    summary: 'Uses a sign-in link (by its token\'s hash) and opens a session whose token has `sessionTokenHash`',
    permission: null,
    params: {},
    body: z.strictObject({ linkTokenHash: sha256Hex, sessionTokenHash: sha256Hex, userAgent: z.string().max(2_000).nullable(), mode: partitionSchema }),
    success: { status: 201, data: sessionAccessSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', ...SIGN_IN_LINK_ERRORS],
  },
  getSessionAccess: {
    ...internal,
    method: 'POST',
    path: '/internal/sessions/access',
    summary: "The open session with this token hash, its member's role and the team (and marks it used); 404 when none",
    permission: null,
    params: {},
    body: z.strictObject({ tokenHash: sha256Hex }),
    success: { status: 200, data: sessionAccessSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'resource_not_found'],
  },
  updateOwnSession: {
    ...internal,
    method: 'PATCH',
    path: '/internal/sessions/own',
    summary: "The calling session's partition (the token is the session's own); 404 when it ended",
    permission: null,
    params: {},
    body: updateSessionBody,
    success: { status: 200, data: sessionAccessSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'resource_not_found'],
  },
  endOwnSession: {
    ...internal,
    method: 'DELETE',
    path: '/internal/sessions/own',
    summary: 'Signs the calling session out (the token is the session\'s own); 404 when it ended',
    permission: null,
    params: {},
    success: { status: 200, data: deletedSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
});
