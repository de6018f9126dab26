import { customFieldSubscriptions, on, type ServiceDeps, type Subscription } from '@helpdesk/kit';
import type { KnowledgeModels } from '../collections';
import type { KnowledgeRules } from '../rules';
import { teamSubscriptions } from './teams';
import { ticketConsumers } from './tickets';

/**
 * Everything the knowledge service reacts to, in one list (queue `helpdesk.knowledge`); a handler
 * that throws is retried by the bus.
 */
export const consumers = ({ articles, customFields, teams }: KnowledgeRules, { conn }: ServiceDeps<KnowledgeModels>): Subscription[] => {
  const tickets = ticketConsumers(conn, articles);
  return [
    on('ticket.created', tickets.created), // replies given at creation that cite articles: useCount
    on('ticket.message_added', tickets.messageAdded), // a reply citing articles: useCount
    on('ai.reply_suggested', tickets.replySuggested), // a reply the AI suggested from articles: useCount
    // The team's article custom field definitions (docs/adr/0022).
    ...customFieldSubscriptions(customFields),
    ...teamSubscriptions(teams),
  ];
};
