import { z } from 'zod';
import { PERMISSIONS } from './permissions';

/** Claims of the short-lived JWT the gateway mints for every proxied request (HS256). */
export const internalClaimsSchema = z.object({
  teamId: z.string().uuid(),
  mode: z.enum(['test', 'live']),
  keyId: z.string(),
  keyType: z.enum(['secret', 'publishable', 'internal']),
  memberId: z.string().nullable(),
  permissions: z.array(z.enum(PERMISSIONS)),
  requestId: z.string(),
});
export type InternalClaims = z.infer<typeof internalClaimsSchema>;
export type Mode = InternalClaims['mode'];

export const INTERNAL_TOKEN_ISSUER = 'helpdesk-gateway';
export const INTERNAL_TOKEN_AUDIENCE = 'helpdesk-services';
/** Header that carries the internal token from the gateway (or a service) to a service. */
export const INTERNAL_TOKEN_HEADER = 'x-internal-token';
