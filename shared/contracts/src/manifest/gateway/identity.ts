import { z } from 'zod';
import { partitionSchema } from '../../partition';
import { defineOperations } from '../operation';

/** Who the caller is: the key's or the session's team, partition and permissions (the gateway answers it itself). */

export const whoamiSchema = z
  .object({
    teamId: z.string().uuid(),
    teamName: z.string(),
    teamSlug: z.string(),
    keyId: z.string(),
    /** `session`: the console's session cookie (docs/adr/0068); `keyId` is then the session's id. */
    keyType: z.enum(['secret', 'publishable', 'session']),
    environment: partitionSchema,
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

export const IDENTITY = defineOperations({
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
});
