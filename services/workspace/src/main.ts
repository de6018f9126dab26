/**
 * Standalone process: `PORT`, `MONGO_URL` (required here), `AMQP_URL`, `INTERNAL_TOKEN_SECRET`, `LOG_LEVEL`, `INVITE_ACCEPT_URL`, `SIGN_IN_URL`, `AUDIT_RETENTION_DAYS`,
 * `BILLING_PORTAL_URL` (the gateway's `/billing/portal`, for the local billing provider's page),
 * `STRIPE_SECRET_KEY` and `STRIPE_WEBHOOK_SECRET` (Stripe instead of the local provider).
 */
// First: tracing starts before anything it instruments is loaded (OTEL_EXPORTER_OTLP_ENDPOINT set; kit telemetry/register.ts).
import '@helpdesk/kit/src/telemetry/register';
import { z } from 'zod';
import { runServiceMain } from '@helpdesk/kit';
import { AUDIT_RETENTION_DAYS_DEFAULT } from './audit-log/model';
import { startWorkspace } from './index';

const envSchema = z
  .object({
    INVITE_ACCEPT_URL: z.string().url().optional(),
    SIGN_IN_URL: z.string().url().optional().describe("The console's sign-in page that sign-in links open (`?token=…` is added); default http://127.0.0.1:8080/app/sign-in."),
    BILLING_PORTAL_URL: z.string().url().optional(),
    // Empty counts as unset (compose passes `${STRIPE_SECRET_KEY:-}`).
    STRIPE_SECRET_KEY: z.string().optional(),
    STRIPE_WEBHOOK_SECRET: z.string().optional(),
    AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(AUDIT_RETENTION_DAYS_DEFAULT).describe('How many days the audit log keeps an entry (a TTL index), 1 to 36500.'),
  })
  .refine((e) => !e.STRIPE_SECRET_KEY || e.STRIPE_WEBHOOK_SECRET, { message: 'STRIPE_WEBHOOK_SECRET is required with STRIPE_SECRET_KEY', path: ['STRIPE_WEBHOOK_SECRET'] });

runServiceMain('workspace', envSchema, (opts, env) =>
  startWorkspace({
    ...opts,
    inviteAcceptUrl: env.INVITE_ACCEPT_URL,
    signInUrl: env.SIGN_IN_URL,
    billingPortalUrl: env.BILLING_PORTAL_URL,
    auditRetentionDays: env.AUDIT_RETENTION_DAYS,
    stripe: env.STRIPE_SECRET_KEY ? { secretKey: env.STRIPE_SECRET_KEY, webhookSecret: env.STRIPE_WEBHOOK_SECRET! } : undefined,
  }),
);
