import { z } from 'zod';
import { partitionSchema } from '../../partition';
import { apiKeySnapshotSchema } from '../../catalog/workspace';
import { PERMISSIONS } from '../../permissions';
import { defineOperations, deletedSchema } from '../operation';
import { memberSchema } from '../workspace/members';
import { acceptInviteBody } from '../workspace/invites';

/** API keys and the invite acceptance that makes a member's first key (docs/adr/0013): the gateway owns keys. */

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
  mode: partitionSchema.optional(),
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

export const API_KEYS = defineOperations({
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
});
