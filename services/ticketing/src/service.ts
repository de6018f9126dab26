import { TICKETING, TICKETING_AUTOMATIONS, TICKETING_BULK_INTERNAL, TICKETING_SEARCH_INTERNAL, WIDGET, WIDGET_CONFIRMATION, WIDGET_INTERNAL } from '@helpdesk/contracts';
import { INBOUND_EMAIL, INBOUND_EMAIL_INTERNAL } from '@helpdesk/contracts';
import { defineService } from '@helpdesk/kit';
import { inboundEmailHandlers } from './inbound-email/handlers';
import { startInboundListeners } from './inbound-email/listeners';
import { ticketBulkHandlers } from './bulk/handlers';
import { consumers } from './consumers';
import { ticketingModels } from './collections';
import { ticketingRules, type TicketingConfig } from './rules';
import { ticketSearchHandlers } from './search/handlers';
import { ticketHandlers } from './tickets/handlers';
import { messageHandlers } from './tickets/messages/handlers';
import { mergeHandlers } from './tickets/merge/handlers';
import { slaHandlers } from './sla/handlers';
import { automationHandlers } from './automations/handlers';
import { aiHandlers } from './ai/handlers';
import { analyticsHandlers } from './analytics/handlers';
import { widgetHandlers } from './widget/handlers';

/** The ticketing service: tickets and their messages, and its projection of customers. */
export const ticketingService = (config: TicketingConfig) =>
  defineService({
    name: 'ticketing',
    operations: { ...TICKETING, ...TICKETING_AUTOMATIONS, ...TICKETING_BULK_INTERNAL, ...TICKETING_SEARCH_INTERNAL, ...INBOUND_EMAIL, ...INBOUND_EMAIL_INTERNAL, ...WIDGET, ...WIDGET_CONFIRMATION, ...WIDGET_INTERNAL },
    models: ticketingModels,
    rules: (deps) => ticketingRules(deps, config),
    handlers: (rules, deps) => ({ ...ticketHandlers(rules), ...messageHandlers(rules), ...mergeHandlers(rules), ...slaHandlers(rules), ...ticketBulkHandlers(rules, deps), ...ticketSearchHandlers(rules, deps.models), ...automationHandlers(rules), ...aiHandlers(rules), ...analyticsHandlers(rules), ...inboundEmailHandlers(rules), ...widgetHandlers(rules) }),
    consumers: (rules, deps) => consumers(rules, deps),
    // The SLA breach scan (docs/adr/0026).
    workers: (rules, { logger }) => {
      // The inbound mail listeners (docs/adr/0041), when configured.
      const inbound = config.inboundEmail?.smtp || config.inboundEmail?.http ? startInboundListeners(rules.inboundEmail, logger) : null;
      return [rules.slaBreaches.start(), ...(inbound ? [inbound] : [])];
    },
  });
