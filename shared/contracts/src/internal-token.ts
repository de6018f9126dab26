import { z } from 'zod';
import { partitionSchema } from './partition';
import { PERMISSIONS } from './permissions';

/** Claims of the short-lived JWT the gateway mints for every proxied request (HS256). */
export const internalClaimsSchema = z.object({
  teamId: z.string().uuid(),
  mode: partitionSchema,
  keyId: z.string(),
  /** `session`: a member signed in to the console (docs/adr/0068); `keyId` is then the session's id. */
  keyType: z.enum(['secret', 'publishable', 'internal', 'session']),
  memberId: z.string().nullable(),
  permissions: z.array(z.enum(PERMISSIONS)),
  requestId: z.string(),
});
export type InternalClaims = z.infer<typeof internalClaimsSchema>;

/**
 * What a token itself may carry: a per-request token names its request, a per-key token (minted once
 * for every request of a key, docs/adr/0019) does not, and the request id travels in
 * REQUEST_ID_HEADER beside it.
 */
export const tokenClaimsSchema = internalClaimsSchema.extend({ requestId: z.string().optional() });
export type TokenClaims = z.infer<typeof tokenClaimsSchema>;

export const INTERNAL_TOKEN_ISSUER = 'helpdesk-gateway';
export const INTERNAL_TOKEN_AUDIENCE = 'helpdesk-services';
/** Header that carries the internal token from the gateway (or a service) to a service. */
export const INTERNAL_TOKEN_HEADER = 'x-internal-token';
/** Header that carries the request id between the gateway and the services (and back to the client). */
export const REQUEST_ID_HEADER = 'x-svc-request-id';
