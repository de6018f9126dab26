/**
 * Standalone process: `PORT`, `MONGO_URL` (required here), `AMQP_URL`, `INTERNAL_TOKEN_SECRET`,
 * `LOG_LEVEL`, `SECRETS_KEY` (required: signing secrets are stored sealed with it) and
 * `SECRETS_KEY_PREVIOUS` (during a rotation; docs/adr/0067), and the delivery settings
 * `WEBHOOKS_ALLOW_LOOPBACK` (default false; unsafe, for local development only) and
 * `WEBHOOKS_TIMEOUT_MS` (default 10000, at most 15000).
 */
// First: tracing starts before anything it instruments is loaded (OTEL_EXPORTER_OTLP_ENDPOINT set; kit telemetry/register.ts).
import '@helpdesk/kit/src/telemetry/register';
import { z } from 'zod';
import { boolFlag, runServiceMain, secretBoxOf, secretsEnvSchema } from '@helpdesk/kit';
import { startWebhooks } from './index';
import { MAX_TIMEOUT_MS } from './settings';

const env = secretsEnvSchema.extend({
  WEBHOOKS_ALLOW_LOOPBACK: boolFlag(false),
  WEBHOOKS_TIMEOUT_MS: z.preprocess((v) => (v === '' || v === undefined ? 10_000 : Number(v)), z.number().int().min(1).max(MAX_TIMEOUT_MS)),
});

runServiceMain('webhooks', env, (opts, e) =>
  startWebhooks({ ...opts, secrets: secretBoxOf(e), settings: { allowLoopback: e.WEBHOOKS_ALLOW_LOOPBACK, timeoutMs: e.WEBHOOKS_TIMEOUT_MS } }),
);
