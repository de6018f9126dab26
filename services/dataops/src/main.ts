/**
 * Standalone process: `PORT`, `MONGO_URL` (required here), `AMQP_URL`, `INTERNAL_TOKEN_SECRET`,
 * `LOG_LEVEL`, and the owning services it fans out to (all required): `TICKETING_URL`,
 * `CUSTOMERS_URL`, `KNOWLEDGE_URL`, `COMMUNITY_URL`, `WORKSPACE_URL`.
 */
import { z } from 'zod';
import { runServiceMain } from '@helpdesk/kit';
import { startDataops } from './index';

const env = z.object({
  TICKETING_URL: z.string().url(),
  CUSTOMERS_URL: z.string().url(),
  KNOWLEDGE_URL: z.string().url(),
  COMMUNITY_URL: z.string().url(),
  WORKSPACE_URL: z.string().url(),
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
