/**
 * Standalone process: `PORT`, `MONGO_URL` (required here), `CUSTOMERS_URL` (required), `AMQP_URL`,
 * `INTERNAL_TOKEN_SECRET`, `LOG_LEVEL`; attachments in `ATTACHMENTS_S3_URL`
 * (`http://key:secret@host:port/bucket`, region `ATTACHMENTS_S3_REGION`) or else under `DATA_DIR/attachments`.
 */
// First: tracing starts before anything it instruments is loaded (OTEL_EXPORTER_OTLP_ENDPOINT set; kit telemetry/register.ts).
import '@helpdesk/kit/src/telemetry/register';
import { z } from 'zod';
import { optionalUrl, runServiceMain } from '@helpdesk/kit';
import { attachmentStorage, startCommunity } from './index';

runServiceMain(
  'community',
  z.object({
    CUSTOMERS_URL: z.string().url(),
    DATA_DIR: z.string().min(1).default('./data'),
    ATTACHMENTS_S3_URL: optionalUrl(),
    ATTACHMENTS_S3_REGION: z.string().min(1).optional(),
  }),
  (opts, env) =>
    startCommunity({
      ...opts,
      customersUrl: env.CUSTOMERS_URL,
      storage: attachmentStorage({ s3Url: env.ATTACHMENTS_S3_URL, s3Region: env.ATTACHMENTS_S3_REGION, dataDir: env.DATA_DIR }),
    }),
);
