/**
 * Standalone process: `PORT`, `MONGO_URL` (required here), `AMQP_URL`, `INTERNAL_TOKEN_SECRET`,
 * `LOG_LEVEL`, `WORKSPACE_URL` (required), `SMTP_URL` (unset: `.eml` files under `DATA_DIR/mail`),
 * `DATA_DIR` (default `./data`), `MAIL_FROM`, `REDIS_URL` (the event stream's log in Redis Streams; required unless HELPDESK_EMBEDDED=1),
 * `TICKETING_URL` (checks widget conversation tokens for their streams; unset: those streams answer 503).
 */
// First: tracing starts before anything it instruments is loaded (OTEL_EXPORTER_OTLP_ENDPOINT set; kit telemetry/register.ts).
import '@helpdesk/kit/src/telemetry/register';
import { z } from 'zod';
import { optionalUrl, runServiceMain } from '@helpdesk/kit';
import { startNotifications } from './index';

const env = z.object({
  WORKSPACE_URL: z.string().url(),
  SMTP_URL: optionalUrl(),
  DATA_DIR: z.string().min(1).default('./data'),
  MAIL_FROM: z.string().min(3).optional(),
  REDIS_URL: optionalUrl().describe("Redis: the event stream's replay log in Redis Streams, shared by every replica (each replica's consumer takes only its share of the events). Required unless HELPDESK_EMBEDDED=1."),
  STREAM_HEARTBEAT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000).describe('How often an idle event stream gets a comment line, so proxies keep it open (ms).'),
  STREAM_MAX_BUFFERED_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024).describe('A stream whose unsent frames exceed this is closed (a slow client); it reconnects with Last-Event-ID.'),
  TICKETING_URL: optionalUrl().describe('The ticketing service: checks a widget conversation token when its stream opens (docs/adr/0040); unset: those streams answer 503.'),
});

runServiceMain(
  'notifications',
  env,
  (opts, e) =>
    startNotifications({ ...opts, workspaceUrl: e.WORKSPACE_URL, smtpUrl: e.SMTP_URL, dataDir: e.DATA_DIR, mailFrom: e.MAIL_FROM, redisUrl: e.REDIS_URL, ticketingUrl: e.TICKETING_URL, streamHeartbeatMs: e.STREAM_HEARTBEAT_MS, streamMaxBufferedBytes: e.STREAM_MAX_BUFFERED_BYTES }),
  // With several replicas an in-process log would hold only the events its own consumer took.
  { REDIS_URL: 'an in-process stream log; one replica only, or streams miss the events other replicas took' },
);
