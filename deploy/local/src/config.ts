import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { boolFlag, optionalUrl, portNumber, requiredUrl, secretsEnvSchema } from '@helpdesk/kit';

/**
 * `npm start`'s environment. Every URL variable switches that part from its embedded default to the
 * real server; nothing else in the process reads process.env.
 */
export const localEnvSchema = z.object({
  PORT: portNumber(8080).describe('Gateway port.'),
  /** Interface the gateway listens on; loopback by default so a laptop does not expose its keys. */
  HOST: z.string().default('127.0.0.1').describe('Interface the gateway listens on; loopback so a laptop does not expose its keys.'),
  /** The embedded MongoDB's port; 27017 is tried first so mongosh/Compass find it, any free port otherwise. */
  EMBEDDED_MONGO_PORT: portNumber(27017).describe('The embedded MongoDB port (any free port when taken).'),
  DATA_DIR: z.string().min(1).default('./data').describe('Embedded MongoDB journal, attachments, mail files, credentials.json.'),
  MONGO_URL: optionalUrl().describe('A real MongoDB instead of the embedded one (each service uses its own database on it).'),
  AMQP_URL: optionalUrl().describe('RabbitMQ instead of the in-process bus.'),
  REDIS_URL: optionalUrl().describe('Redis instead of in-process rate limits, idempotency and event-stream log.'),
  /** Community attachments in S3-compatible storage (`http://KEY:SECRET@host:port/bucket`); a folder under DATA_DIR when empty. */
  ATTACHMENTS_S3_URL: optionalUrl().describe('Community attachments in S3-compatible storage (`http://KEY:SECRET@host:port/bucket`); a folder under DATA_DIR when empty.'),
  SMTP_URL: optionalUrl().describe('Outgoing mail over SMTP (`smtp://user:pass@host:port`); `.eml` files under DATA_DIR/mail when empty.'),
  /** Inbound email (docs/adr/0041): mail to `<teamId>@INBOUND_EMAIL_DOMAIN` on the SMTP port becomes tickets. */
  INBOUND_EMAIL_DOMAIN: z.string().min(3).default('helpdesk.local').describe('The domain of the teams\' inbound addresses (`<teamId>@domain`, `<teamId>.test@domain`) and of reply Message-IDs.'),
  INBOUND_SMTP_PORT: portNumber(2525).describe('Port of the inbound SMTP listener (on HOST).'),
  INBOUND_HTTP_PORT: portNumber(2580).describe('Port of the inbound webhook listener for providers\' raw MIME (on HOST).'),
  INBOUND_EMAIL_MAX_BYTES: z.coerce.number().int().min(1024).default(10 * 1024 * 1024).describe('The largest inbound mail in bytes; default 10 MiB.'),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl().describe('OTLP/HTTP collector for traces; unset = no export.'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('pino log level.'),
  /** Prometheus `GET /metrics` of the whole platform (embedded stand-ins included) on this port; unset = none. */
  METRICS_PORT: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(0).max(65535).optional()).describe('Prometheus `GET /metrics` of the whole platform (embedded stand-ins included) on this port; unset = none.'),
  INTERNAL_TOKEN_SECRET: z
    .string()
    .min(32, 'must be at least 32 characters')
    .default(() => randomBytes(32).toString('hex'))
    .describe('At least 32 characters; random per start when empty (fine while everything runs in one process).'),
  SECRETS_KEY: secretsEnvSchema.shape.SECRETS_KEY.optional().describe('Key of the secrets kept at rest (webhook signing secrets; docs/adr/0067); unset: made on the first start and kept in DATA_DIR/secrets-key.'),
  SECRETS_KEY_PREVIOUS: secretsEnvSchema.shape.SECRETS_KEY_PREVIOUS,
  RATE_LIMIT_SECRET_PER_MINUTE: z.coerce.number().int().positive().optional().describe('Requests per minute per secret key (default 120).'),
  RATE_LIMIT_PUBLISHABLE_PER_MINUTE: z.coerce.number().int().positive().optional().describe('Requests per minute per publishable key (default 60).'),
  /** Unsafe, for local development: webhooks may target loopback addresses, over plain HTTP too. */
  WEBHOOKS_ALLOW_LOOPBACK: boolFlag(false).describe('UNSAFE, local development only: webhooks may target loopback addresses, over plain HTTP too.'),
  /** Per-attempt webhook delivery timeout, at most 15 s. */
  WEBHOOKS_TIMEOUT_MS: z.preprocess((v) => (v === '' || v === undefined ? 10_000 : Number(v)), z.number().int().min(1).max(15_000)).describe('Per-attempt webhook delivery timeout in ms (at most 15000).'),
});
export type LocalEnv = z.infer<typeof localEnvSchema>;

/**
 * `npm run start:processes`' own environment (deploy/local/src/processes.ts). Every other variable
 * of the environment reaches the processes it starts, which read their own.
 */
export const processesEnvSchema = z.object({
  PORT: portNumber(8080).describe('Gateway port (0 = any free port).'),
  HOST: z.string().min(1).default('127.0.0.1').describe('Interface every process listens on; loopback by default.'),
  DATA_DIR: z.string().min(1).default('./data').describe('Embedded MongoDB journal, attachments, mail files, credentials.json, processes.json.'),
  EMBEDDED_MONGO_PORT: portNumber(27017).describe('The embedded MongoDB server port (any free port when taken).'),
  MONGO_URL: optionalUrl().describe('A real MongoDB replica set instead of the embedded server (each process uses its own database on it).'),
  AMQP_URL: requiredUrl('RabbitMQ, e.g. amqp://guest:guest@127.0.0.1:5672').describe('RabbitMQ.'),
  REDIS_URL: requiredUrl('Redis, e.g. redis://127.0.0.1:6379').describe('Redis (the gateway\'s limits and idempotency, the stream log).'),
  INTERNAL_TOKEN_SECRET: z.string().min(32, 'must be at least 32 characters').default(() => randomBytes(32).toString('hex')).describe('Shared by every process; random per start when empty.'),
  SECRETS_KEY: secretsEnvSchema.shape.SECRETS_KEY.optional().describe('Key of the secrets kept at rest, passed to the processes that keep some (docs/adr/0067); unset: made on the first start and kept in DATA_DIR/secrets-key.'),
  NODE_ENV: z.enum(['development', 'test', 'production']).default('production').describe('Passed to every process; `production` by default, as deployed.'),
  INBOUND_SMTP_PORT: portNumber(2525).describe('Ticketing\'s inbound SMTP listener.'),
  INBOUND_HTTP_PORT: portNumber(2580).describe('Ticketing\'s inbound webhook listener.'),
});
export type ProcessesEnv = z.infer<typeof processesEnvSchema>;
