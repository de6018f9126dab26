import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { boolFlag, optionalUrl, portNumber } from '@helpdesk/kit';

/**
 * `npm start`'s environment. Every URL variable switches that part from its embedded default to the
 * real server; nothing else in the process reads process.env.
 */
export const localEnvSchema = z.object({
  PORT: portNumber(8080),
  /** Interface the gateway listens on; loopback by default so a laptop does not expose its keys. */
  HOST: z.string().default('127.0.0.1'),
  /** The embedded MongoDB's port; 27017 is tried first so mongosh/Compass find it, any free port otherwise. */
  EMBEDDED_MONGO_PORT: portNumber(27017),
  DATA_DIR: z.string().min(1).default('./data'),
  MONGO_URL: optionalUrl(),
  AMQP_URL: optionalUrl(),
  REDIS_URL: optionalUrl(),
  /** Community attachments in S3-compatible storage (`http://KEY:SECRET@host:port/bucket`); a folder under DATA_DIR when empty. */
  ATTACHMENTS_S3_URL: optionalUrl(),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Prometheus `GET /metrics` of the whole platform (embedded stand-ins included) on this port; unset = none. */
  METRICS_PORT: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(0).max(65535).optional()),
  INTERNAL_TOKEN_SECRET: z
    .string()
    .min(32, 'must be at least 32 characters')
    .default(() => randomBytes(32).toString('hex')),
  RATE_LIMIT_SECRET_PER_MINUTE: z.coerce.number().int().positive().optional(),
  RATE_LIMIT_PUBLISHABLE_PER_MINUTE: z.coerce.number().int().positive().optional(),
  /** Unsafe, for local development: webhooks may target loopback addresses, over plain HTTP too. */
  WEBHOOKS_ALLOW_LOOPBACK: boolFlag(false),
  /** Per-attempt webhook delivery timeout, at most 15 s. */
  WEBHOOKS_TIMEOUT_MS: z.preprocess((v) => (v === '' || v === undefined ? 10_000 : Number(v)), z.number().int().min(1).max(15_000)),
});
export type LocalEnv = z.infer<typeof localEnvSchema>;
