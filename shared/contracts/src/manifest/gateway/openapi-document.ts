import { z } from 'zod';
import { defineOperations } from '../operation';

/** The OpenAPI document itself (docs/adr/0009). */

export const OPENAPI_DOCUMENT = defineOperations({
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
