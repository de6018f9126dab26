import { z } from 'zod';
import { apiKeySnapshotSchema } from '../catalog/workspace';
import { PERMISSIONS } from '../permissions';
import { createStreamTokenBody, STREAM_TOKEN_TTL_MS, streamTokenSchema } from './notifications';
import { defineOperations, deletedSchema } from './operation';
import { acceptInviteBody, memberSchema } from './workspace';

/** The gateway's own operations (it answers them itself; no service behind them). */

export const whoamiSchema = z
  .object({
    teamId: z.string().uuid(),
    teamName: z.string(),
    teamSlug: z.string(),
    keyId: z.string(),
    /** `session`: the console's session cookie (docs/adr/0068); `keyId` is then the session's id. */
    keyType: z.enum(['secret', 'publishable', 'session']),
    environment: z.enum(['test', 'live']),
    createdAt: z.string().datetime(),
    subscriptionStatus: z.enum(['active', 'trialing', 'past_due', 'canceled', 'unpaid']),
    /**
     * The member the key belongs to (`mem_…`; `GET /teams/{teamId}/members/{memberId}`), null for a key
     * of no member (an operator's). What `userId` defaults to where it may be left out.
     */
    memberId: z
      .string()
      .nullable()
      .describe("The member the key belongs to (`mem_…`), null for a key that belongs to no member; `userId` defaults to it where it may be left out."),
  })
  .meta({ id: 'Whoami' });

// ---------- API keys (docs/adr/0013) ----------

export const API_KEY_NAME_MAX = 100;
export const API_KEY_LIFETIME_DAYS_MAX = 730;
/** A key as listed: everything but the key itself (only its hash is stored). */
export const apiKeySchema = z
  .object({ object: z.literal('api_key') })
  .extend(apiKeySnapshotSchema.omit({ revokedAt: true }).shape)
  .extend({ lastUsedAt: z.string().datetime().nullable() })
  .meta({ id: 'ApiKey' });
/** The answer to a create: the key, shown this once. */
export const createdApiKeySchema = apiKeySchema.extend({ key: z.string() }).meta({ id: 'CreatedApiKey' });
export const createApiKeyBody = z.strictObject({
  type: z.enum(['secret', 'publishable']).optional().default('secret'),
  /** Default: the partition of the key making the call. */
  mode: z.enum(['test', 'live']).optional(),
  name: z.string().trim().min(1).max(API_KEY_NAME_MAX).optional(),
  scopes: z.array(z.enum(PERMISSIONS)).min(1).max(PERMISSIONS.length).optional(),
  /** An absolute expiry (in the future, at most two years ahead) … */
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  /** … or a lifetime in days (1 to 730); not both. */
  expiresInDays: z.number().int().min(1).max(API_KEY_LIFETIME_DAYS_MAX).optional(),
});
export type CreateApiKeyInput = z.output<typeof createApiKeyBody>;
export const listApiKeysQuery = z.strictObject({ includeRevoked: z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean()).optional() });

/** What accepting an invite answers: the new member and its first secret key, shown once. */
export const acceptedInviteSchema = z.object({ member: memberSchema, apiKey: createdApiKeySchema }).meta({ id: 'AcceptedInvite' });

const apiKeys = { service: 'gateway', tag: 'API keys', keys: 'secret' } as const;

export const GATEWAY = defineOperations({
  whoami: {
    service: 'gateway',
    tag: 'Identity',
    method: 'GET',
    path: '/auth/whoami',
    summary: 'The team and key behind this API key',
    description:
      '`createdAt` is when the key was created; `environment` is the partition (`test` or `live`); `memberId` is the key\'s member ' +
      '(null for a key that belongs to no member), which `userId` defaults to in the game and notifications operations. Any key kind ' +
      'may call it; with the console\'s session cookie `keyType` is `session` and `keyId` the session\'s id (docs/adr/0068).',
    permission: null,
    keys: 'public',
    params: {},
    success: { status: 200, data: whoamiSchema, shape: 'envelope' },
    errors: [],
  },
  listApiKeys: {
    ...apiKeys,
    method: 'GET',
    path: '/teams/{teamId}/api-keys',
    summary: 'List API keys',
    description:
      "The calling key's partition only (a test key lists test keys), oldest first, never the key itself. A key whose member has " +
      '`manage_members` lists every member\'s keys; any other lists its own member\'s. Revoked keys are left out unless ' +
      '`includeRevoked=true`. Not paginated (docs/adr/0013).',
    permission: null,
    params: { teamId: 'team' },
    query: listApiKeysQuery,
    success: { status: 200, data: z.array(apiKeySchema), shape: 'envelope' },
    errors: ['parameter_invalid'],
  },
  createApiKey: {
    ...apiKeys,
    method: 'POST',
    path: '/teams/{teamId}/api-keys',
    summary: 'Create an API key',
    description:
      'The new key belongs to the calling key\'s member and is shown once, in `key`. `type` defaults to secret, `mode` to the calling ' +
      "key's partition; a test key cannot create a live key (403 `insufficient_permissions`, param mode). `scopes` must be permissions " +
      'the calling key has (403, param scopes), and for a publishable key also readable by one (view_articles, view_community; 400). ' +
      'Without `scopes` the key follows its member\'s role, or, made by a scoped key, gets that key\'s permissions. `expiresAt` (future, ' +
      'at most 730 days ahead) or `expiresInDays` (1 to 730), not both (400). Emits `api_key.created`.',
    permission: null,
    params: { teamId: 'team' },
    body: createApiKeyBody,
    success: { status: 201, data: createdApiKeySchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'idempotency_key_in_use'],
  },
  revokeApiKey: {
    ...apiKeys,
    method: 'DELETE',
    path: '/teams/{teamId}/api-keys/{keyId}',
    summary: 'Revoke an API key',
    description:
      'Permanent; the key answers 401 `invalid_api_key` within 5 seconds on every gateway (at once on this one). A key of another ' +
      "member needs `manage_members`; a key of the other partition, another team, or already revoked is 404. A key may revoke itself. " +
      'Emits `api_key.revoked`.',
    permission: null,
    params: { teamId: 'team', keyId: 'key' },
    success: { status: 200, data: deletedSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  acceptInvite: {
    service: 'gateway',
    tag: 'Invites',
    method: 'POST',
    path: '/invites/accept',
    summary: 'Accept an invitation',
    description:
      'No API key: the single-use `token` from the invitation link identifies the team and the invite. Creates the member (the invited ' +
      'email and role, the given `name`) and answers it with its first secret key (in the partition of the key that invited them), ' +
      'shown once. Refused: unknown token 404 (param token); already used 409 `invite_already_accepted`; revoked 410 `invite_revoked`; ' +
      'expired 410 `invite_expired`; the email became a member meanwhile 409 `resource_conflict` (docs/adr/0013).',
    permission: null,
    keys: 'none',
    params: {},
    body: acceptInviteBody,
    success: { status: 201, data: acceptedInviteSchema, shape: 'envelope' },
    errors: [
      'parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found', 'resource_conflict',
      'invite_expired', 'invite_revoked', 'invite_already_accepted', 'service_unavailable',
    ],
  },
  createStreamToken: {
    service: 'gateway',
    tag: 'Events',
    keys: 'secret',
    method: 'POST',
    path: '/teams/{teamId}/events/stream-tokens',
    summary: 'Create a stream token (for a browser\'s event stream)',
    description:
      `A short-lived token (${STREAM_TOKEN_TTL_MS / 60_000} minutes) that opens the event stream without an API key: ` +
      '`GET /teams/{teamId}/events/stream?token=<token>`, for a browser\'s `EventSource`, which cannot send a header; a server keeps ' +
      'the secret key and hands the page the token. It is bound to the calling key\'s team and partition, to that key (revoking the key ' +
      'refuses the token and ends the streams opened with it) and to `types` (webhook patterns; absent: `*`). It opens any number of ' +
      'streams until `expiresAt` (EventSource reconnects with the same URL); a stream already open outlives it. Nothing is stored: the ' +
      'token is sealed by the gateway (docs/adr/0031). A bad pattern is 400 `parameter_invalid` (param `types`). The token reads what ' +
      'its key may read (docs/adr/0066): a pattern that matches only events the key may not read is 403 `insufficient_permissions` ' +
      '(param `types`), and its streams carry the events the key may read when they open.',
    permission: null,
    params: { teamId: 'team' },
    body: createStreamTokenBody,
    success: { status: 201, data: streamTokenSchema, shape: 'envelope' },
    errors: ['parameter_invalid', 'invalid_json'],
  },
  getOpenApiDocument: {
    service: 'gateway',
    tag: 'Identity',
    method: 'GET',
    path: '/openapi.json',
    summary: 'This OpenAPI document',
    description: 'Served without a key, as is the HTML reference at `/docs`.',
    permission: null,
    keys: 'none',
    params: {},
    success: { status: 200, data: z.record(z.string(), z.unknown()), shape: 'bare' },
    errors: [],
  },
});
