/**
 * Every error code the API answers with, its HTTP status and its type (the spec's Errors section).
 * The spec shows codes in lowercase and in uppercase; we always answer lowercase, except where the
 * spec itself shows uppercase for one endpoint (clients must accept both).
 */
export const ERROR_TYPES = [
  'authentication_error',
  'authorization_error',
  'invalid_request_error',
  'validation_error',
  'conflict_error',
  'not_found_error',
  'rate_limit_error',
  'api_error',
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

export const ERROR_CODES = {
  authentication_required: { status: 401, type: 'authentication_error' },
  invalid_api_key: { status: 401, type: 'authentication_error' },
  invalid_key_format: { status: 401, type: 'authentication_error' },
  key_expired: { status: 401, type: 'authentication_error' },
  insufficient_permissions: { status: 403, type: 'authorization_error' },
  publishable_key_write: { status: 403, type: 'authorization_error' },
  publishable_key_forbidden: { status: 403, type: 'authorization_error' },
  team_access_denied: { status: 403, type: 'authorization_error' },
  parameter_missing: { status: 400, type: 'invalid_request_error' },
  parameter_invalid: { status: 400, type: 'invalid_request_error' },
  invalid_json: { status: 400, type: 'invalid_request_error' },
  invalid_id_format: { status: 400, type: 'invalid_request_error' },
  resource_conflict: { status: 409, type: 'conflict_error' },
  idempotency_key_in_use: { status: 409, type: 'conflict_error' },
  method_not_allowed: { status: 405, type: 'invalid_request_error' },
  resource_not_found: { status: 404, type: 'not_found_error' },
  route_not_found: { status: 404, type: 'not_found_error' },
  /** 422: ticket create named a customerEmail no customer has (the spec leaves the code to us). */
  customer_not_found: { status: 422, type: 'validation_error' },
  /** Invite acceptance (docs/adr/0013): the token's invite has expired, was revoked, or was already used. */
  invite_expired: { status: 410, type: 'invalid_request_error' },
  invite_revoked: { status: 410, type: 'invalid_request_error' },
  invite_already_accepted: { status: 409, type: 'conflict_error' },
  /** The game (docs/adr/0032): a team feature switched off, a boss rule, a member's balance or a one-time action. */
  feature_disabled: { status: 403, type: 'authorization_error' },
  boss_already_active: { status: 409, type: 'conflict_error' },
  boss_not_active: { status: 409, type: 'conflict_error' },
  /** (boss damage) the ticket already dealt its hit. */
  boss_hit_already_dealt: { status: 409, type: 'conflict_error' },
  not_enough_tickets: { status: 422, type: 'validation_error' },
  ticket_not_eligible: { status: 422, type: 'validation_error' },
  insufficient_gold: { status: 422, type: 'validation_error' },
  insufficient_skill_points: { status: 422, type: 'validation_error' },
  game_rule_violation: { status: 422, type: 'validation_error' },
  already_done: { status: 409, type: 'conflict_error' },
  /** 502: the AI provider answered with an error or an unusable answer (docs/adr/0029). */
  ai_provider_error: { status: 502, type: 'api_error' },
  /** The chat widget (docs/adr/0040): a secret key on its public endpoints; a page's origin not in the widget settings' allowedOrigins. */
  secret_key_forbidden: { status: 403, type: 'authorization_error' },
  origin_not_allowed: { status: 403, type: 'authorization_error' },
  /**
   * Console sessions (docs/adr/0068): a session cookie that opens no session; a write with the cookie
   * but without its CSRF token; a sign-in link unknown, past its 15 minutes, or already used.
   */
  session_invalid: { status: 401, type: 'authentication_error' },
  csrf_token_invalid: { status: 403, type: 'authorization_error' },
  sign_in_link_invalid: { status: 400, type: 'invalid_request_error' },
  sign_in_link_expired: { status: 410, type: 'invalid_request_error' },
  sign_in_link_used: { status: 409, type: 'conflict_error' },
  rate_limit_exceeded: { status: 429, type: 'rate_limit_error' },
  internal_error: { status: 500, type: 'api_error' },
  database_error: { status: 500, type: 'api_error' },
  /** 503 when a service (or the gateway's Redis) cannot be reached: the request did not run; retry. */
  service_unavailable: { status: 503, type: 'api_error' },
  /** Internal calls only: the internal token is missing or invalid. */
  internal_token_invalid: { status: 401, type: 'authentication_error' },
} as const satisfies Record<string, { status: number; type: ErrorType }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * The default start of every error's `doc_url` (`+ code`): the error reference the platform serves
 * itself (error-reference.ts, `/docs/errors`), relative to the API's origin. A public deployment
 * builds its own with `errorDocUrl(code, base)`.
 */
export const DOC_URL_BASE = '/docs/errors#';

/** The error body every endpoint answers with. */
export interface ErrorBody {
  success: false;
  error: { type: ErrorType; code: string; message: string; param?: string; doc_url?: string; request_id: string };
  meta: { timestamp: string; requestId: string };
}
