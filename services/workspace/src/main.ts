/**
 * Standalone process: `PORT`, `MONGO_URL` (required here), `AMQP_URL`, `INTERNAL_TOKEN_SECRET`, `LOG_LEVEL`, `INVITE_ACCEPT_URL`,
 * `BILLING_PORTAL_URL` (the gateway's `/billing/portal`, for the local billing provider's page).
 */
import { z } from 'zod';
import { runServiceMain } from '@helpdesk/kit';
import { startWorkspace } from './index';

runServiceMain('workspace', z.object({ INVITE_ACCEPT_URL: z.string().url().optional(), BILLING_PORTAL_URL: z.string().url().optional() }), (opts, env) =>
  startWorkspace({ ...opts, inviteAcceptUrl: env.INVITE_ACCEPT_URL, billingPortalUrl: env.BILLING_PORTAL_URL }),
);
