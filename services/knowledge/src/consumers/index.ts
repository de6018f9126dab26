import { customFieldSubscriptions, on, type ServiceDeps, type Subscription } from '@helpdesk/kit';
import type { KnowledgeModels } from '../models';
import type { KnowledgeRules } from '../rules';
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
    // The team's slug, the help center's address (a new team's, then every change of it).
    on('member.joined', async (e) => {
      if (e.data.team) await teams.setSlug(e.teamId, e.data.team.slug, new Date(e.occurredAt));
    }),
    on('settings.updated', (e) => teams.setSlug(e.teamId, e.data.settings.teamSlug, new Date(e.occurredAt))),
  ];
};
