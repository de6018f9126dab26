import { defineOperations } from '../operation';
import { createStreamTokenBody, STREAM_TOKEN_TTL_MS, streamTokenSchema } from '../notifications/notifications';

/** Stream tokens (docs/adr/0031): minted by the gateway for the event stream, which the notifications service serves. */

export const STREAM_TOKENS = defineOperations({
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
});
