/** Standalone process: `PORT`, `MONGO_URL` (required here), `CUSTOMERS_URL` (required), `AMQP_URL`, `INTERNAL_TOKEN_SECRET`, `LOG_LEVEL`;
 * `SECRETS_KEY` (required) and `SECRETS_KEY_PREVIOUS`: answers kept for an Idempotency-Key, which can carry a secret shown once, are sealed (docs/adr/0067);
 * the AI provider (docs/adr/0029): `AI_BASE_URL` (an OpenAI-compatible server; the local provider when unset), `AI_API_KEY`, `AI_MODEL`, `AI_TIMEOUT_MS`;
 * inbound email (docs/adr/0041): `INBOUND_EMAIL_DOMAIN`, `INBOUND_EMAIL_LISTENERS`, `INBOUND_SMTP_*`, `INBOUND_HTTP_*`, `INBOUND_EMAIL_MAX_BYTES`, `INBOUND_EMAIL_SENDER_LIMIT_PER_HOUR`, `INBOUND_EMAIL_TEAM_LIMIT_PER_HOUR`. */
// First: tracing starts before anything it instruments is loaded (OTEL_EXPORTER_OTLP_ENDPOINT set; kit telemetry/register.ts).
import '@helpdesk/kit/src/telemetry/register';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { optionalUrl, portNumber, runServiceMain, secretBoxOf, secretsEnvSchema } from '@helpdesk/kit';
import { startTicketing } from './index';

const env = secretsEnvSchema.extend({
  CUSTOMERS_URL: z.string().url(),
  AI_BASE_URL: optionalUrl().describe('An OpenAI-compatible server for POST /ai (OpenAI, Ollama, vLLM…); unset = the built-in local provider.'),
  AI_API_KEY: z.string().optional().describe('The AI server\'s API key, if it needs one.'),
  AI_MODEL: z.string().optional().describe('The chat model to ask (default gpt-4o-mini).'),
  AI_TIMEOUT_MS: z.coerce.number().int().positive().optional().describe('How long one AI request may take before POST /ai answers 503 (default 15000).'),
  // Inbound email (docs/adr/0041).
  INBOUND_EMAIL_DOMAIN: z.string().min(3).default('helpdesk.local').describe('The domain of the partitions\' inbound addresses (`<teamId>@domain`) and of reply Message-IDs; its MX points at the SMTP listener.'),
  INBOUND_EMAIL_LISTENERS: z.enum(['smtp,http', 'smtp', 'http', 'none']).default('smtp,http').describe('Which inbound listeners run: the SMTP listener, the providers\' webhook listener, both, or none.'),
  INBOUND_SMTP_HOST: z.string().default('0.0.0.0').describe('Interface of the inbound SMTP listener.'),
  INBOUND_SMTP_PORT: portNumber(2525).describe('Port of the inbound SMTP listener (25 behind a port mapping in production).'),
  INBOUND_SMTP_TLS_KEY_FILE: z.string().optional().describe('PEM private key for STARTTLS on the SMTP listener (with INBOUND_SMTP_TLS_CERT_FILE); unset: no STARTTLS.'),
  INBOUND_SMTP_TLS_CERT_FILE: z.string().optional().describe('PEM certificate chain for STARTTLS on the SMTP listener.'),
  INBOUND_HTTP_HOST: z.string().default('0.0.0.0').describe('Interface of the inbound webhook listener (`POST /inbound-email/{teamId}/messages`).'),
  INBOUND_HTTP_PORT: portNumber(2580).describe('Port of the inbound webhook listener.'),
  INBOUND_EMAIL_SENDER_LIMIT_PER_HOUR: z.coerce.number().int().min(1).default(30).describe('Inbound mails one sender may send into a partition each hour; more are refused (SMTP 451 4.7.1, the webhook 429 with Retry-After). Counted in ticketing\'s database, so replicas agree.'),
  INBOUND_EMAIL_TEAM_LIMIT_PER_HOUR: z.coerce.number().int().min(1).default(1000).describe('Inbound mails one partition may receive each hour from all senders; a sender refused for its own limit does not count.'),
  INBOUND_EMAIL_MAX_BYTES: z.coerce.number().int().min(1024).default(10 * 1024 * 1024).describe('The largest inbound mail in bytes (SMTP SIZE, the webhook body limit); default 10 MiB.'),
});

runServiceMain('ticketing', env, (opts, e) =>
  startTicketing({
    ...opts,
    secrets: secretBoxOf(e),
    customersUrl: e.CUSTOMERS_URL,
    inboundEmail: {
      domain: e.INBOUND_EMAIL_DOMAIN,
      maxBytes: e.INBOUND_EMAIL_MAX_BYTES,
      smtp: e.INBOUND_EMAIL_LISTENERS.includes('smtp')
        ? {
            host: e.INBOUND_SMTP_HOST,
            port: e.INBOUND_SMTP_PORT,
            tls: e.INBOUND_SMTP_TLS_KEY_FILE && e.INBOUND_SMTP_TLS_CERT_FILE ? { key: readFileSync(e.INBOUND_SMTP_TLS_KEY_FILE), cert: readFileSync(e.INBOUND_SMTP_TLS_CERT_FILE) } : undefined,
          }
        : null,
      http: e.INBOUND_EMAIL_LISTENERS.includes('http') ? { host: e.INBOUND_HTTP_HOST, port: e.INBOUND_HTTP_PORT } : null,
      limits: { perSenderPerHour: e.INBOUND_EMAIL_SENDER_LIMIT_PER_HOUR, perTeamPerHour: e.INBOUND_EMAIL_TEAM_LIMIT_PER_HOUR },
    },
    ai: e.AI_BASE_URL ? { openai: { baseUrl: e.AI_BASE_URL, apiKey: e.AI_API_KEY, model: e.AI_MODEL, timeoutMs: e.AI_TIMEOUT_MS } } : undefined,
  }),
);
