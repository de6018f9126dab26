import {
  COMMUNITY_SEARCH_INTERNAL,
  CUSTOMERS_SEARCH_INTERNAL,
  KNOWLEDGE_SEARCH_INTERNAL,
  TICKETING_SEARCH_INTERNAL,
  VIEWS_INTERNAL,
} from '@helpdesk/contracts';
import { internalClient } from '@helpdesk/kit';
import type { DataopsConfig } from './rules';

/** A tag merge or delete rewrites every record one by one through its service's rules: it may take a while. */
const REWRITE_TIMEOUT_MS = 120_000;

/**
 * The owning services' internal operations behind search, tags and saved views (docs/adr/0034),
 * each a typed client that forwards the caller's token (so each answers in the caller's team and partition).
 */
export function ownerClients(config: DataopsConfig) {
  return {
    ticketing: internalClient(TICKETING_SEARCH_INTERNAL, config.ticketingUrl, { service: 'ticketing' }),
    customers: internalClient(CUSTOMERS_SEARCH_INTERNAL, config.customersUrl, { service: 'customers' }),
    knowledge: internalClient(KNOWLEDGE_SEARCH_INTERNAL, config.knowledgeUrl, { service: 'knowledge' }),
    community: internalClient(COMMUNITY_SEARCH_INTERNAL, config.communityUrl, { service: 'community' }),
    workspace: internalClient(VIEWS_INTERNAL, config.workspaceUrl, { service: 'workspace' }),
    rewrite: {
      ticketing: internalClient(TICKETING_SEARCH_INTERNAL, config.ticketingUrl, { service: 'ticketing', timeoutMs: REWRITE_TIMEOUT_MS }),
      customers: internalClient(CUSTOMERS_SEARCH_INTERNAL, config.customersUrl, { service: 'customers', timeoutMs: REWRITE_TIMEOUT_MS }),
      knowledge: internalClient(KNOWLEDGE_SEARCH_INTERNAL, config.knowledgeUrl, { service: 'knowledge', timeoutMs: REWRITE_TIMEOUT_MS }),
    },
  };
}
export type OwnerClients = ReturnType<typeof ownerClients>;
