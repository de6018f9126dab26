import { z } from 'zod';
import { apiKeySnapshotSchema } from '../../catalog/workspace';
import { defineOperations } from '../operation';
import { internal } from './common';

/** The gateway's keys' events: the gateway has no outbox of its own, so the workspace service emits them. */
export const API_KEY_EVENTS_INTERNAL = defineOperations({
  recordApiKeyEvent: {
    ...internal,
    method: 'POST',
    path: '/internal/api-key-events',
    summary: 'Emits api_key.created or api_key.revoked for the gateway (which has no outbox of its own)',
    permission: null,
    params: {},
    body: z.strictObject({ type: z.enum(['api_key.created', 'api_key.revoked']), apiKey: apiKeySnapshotSchema }),
    success: { status: 201, data: z.object({ eventId: z.string() }), shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid'],
  },
});
