import { z } from 'zod';
import { defineOperations } from './operation';

/** The gateway's own operations (it answers them itself; no service behind them). */

export const whoamiSchema = z
  .object({
    teamId: z.string().uuid(),
    teamName: z.string(),
    teamSlug: z.string(),
    keyId: z.string(),
    keyType: z.enum(['secret', 'publishable']),
    environment: z.enum(['test', 'live']),
    createdAt: z.string().datetime(),
    subscriptionStatus: z.enum(['active', 'trialing', 'past_due', 'canceled', 'unpaid']),
  })
  .meta({ id: 'Whoami' });

export const GATEWAY = defineOperations({
  whoami: {
    service: 'gateway',
    tag: 'Identity',
    method: 'GET',
    path: '/auth/whoami',
    summary: 'The team and key behind this API key',
    description: '`createdAt` is when the key was created; `environment` is the partition (`test` or `live`). Any key kind may call it.',
    permission: null,
    keys: 'public',
    params: {},
    success: { status: 200, data: whoamiSchema, shape: 'envelope' },
    errors: [],
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
