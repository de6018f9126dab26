/**
 * Standalone process: `PORT`, `MONGO_URL` (required here), `AMQP_URL`, `INTERNAL_TOKEN_SECRET`,
 * `LOG_LEVEL`, and the owning services it fans out to (all required): `TICKETING_URL`,
 * `CUSTOMERS_URL`, `KNOWLEDGE_URL`, `COMMUNITY_URL`, `WORKSPACE_URL`.
 */
// First: tracing starts before anything it instruments is loaded (OTEL_EXPORTER_OTLP_ENDPOINT set; kit telemetry/register.ts).
import '@helpdesk/kit/src/telemetry/register';
import { z } from 'zod';
import { runServiceMain } from '@helpdesk/kit';
import { startDataops } from './index';

const env = z.object({
  TICKETING_URL: z.string().url().describe('The ticketing service (dataops calls its internal operations, docs/adr/0034).'),
  CUSTOMERS_URL: z.string().url().describe('The customers service (dataops calls its internal operations, docs/adr/0034).'),
  KNOWLEDGE_URL: z.string().url().describe('The knowledge service (dataops calls its internal operations, docs/adr/0034).'),
  COMMUNITY_URL: z.string().url().describe('The community service (dataops calls its internal operations, docs/adr/0034).'),
  WORKSPACE_URL: z.string().url().describe('The workspace service (dataops calls its internal operations, docs/adr/0034).'),
});

runServiceMain('dataops', env, (opts, e) =>
  startDataops({
    ...opts,
    ticketingUrl: e.TICKETING_URL,
    customersUrl: e.CUSTOMERS_URL,
    knowledgeUrl: e.KNOWLEDGE_URL,
    communityUrl: e.COMMUNITY_URL,
    workspaceUrl: e.WORKSPACE_URL,
  }),
);
