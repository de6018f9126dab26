import { customFieldSubscriptions, on, type Logger, type Subscription } from '@helpdesk/kit';
import type { TicketingRules } from '../rules';
import { automationConsumers } from '../automations/consumers';
import { aiConsumers } from '../ai/consumers';
import { analyticsConsumers } from '../analytics/consumers';

/**
 * Everything ticketing reacts to, in one list: the customers it keeps a projection of (search,
 * expand[]=customer and the customer check of a ticket's create or move read it, docs/adr/0055) and
 * the deletions that unlink a customer's tickets. Each handler is
 * idempotent by itself (snapshots are applied by `rev`; unlinking finds only tickets still linked),
 * so a redelivered event changes nothing twice.
 */
export const consumers = ({ customerRefs, customFields, members, businessHours, automations, ai, analytics }: TicketingRules, { logger }: { logger: Logger }): Subscription[] => [
  on('customer.created', (e) => customerRefs.apply(e, e.data.customer)),
  on('customer.updated', (e) => customerRefs.apply(e, e.data.customer)),
  on('customer.deleted', async (e) => {
    const unlinked = await customerRefs.unlinkDeleted(e, e.data.customer);
    logger.info({ customerId: e.data.customerId, unlinked, requestId: e.requestId }, 'deleted customer unlinked from its tickets');
  }),
  // The team's ticket custom field definitions (docs/adr/0022).
  ...customFieldSubscriptions(customFields),
  // The members assignment accepts and the calendar SLA clocks count in (docs/adr/0025, 0026).
  on('member.joined', (e) => members.upsert(e.teamId, e.data.member)),
  on('member.role_changed', (e) => members.upsert(e.teamId, e.data.member)),
  on('member.removed', (e) => members.remove(e.teamId, e.data.member)),
  on('business_hours.updated', (e) => businessHours.apply(e)),
  // Automations, the AI's articles, the analytics' facts (docs/adr/0028-0030).
  ...automationConsumers(automations),
  ...aiConsumers(ai),
  ...analyticsConsumers(analytics),
];
