import { CUSTOMERS_INTERNAL } from '@helpdesk/contracts';
import { customFieldRules, internalClient, type InternalTokens, type ServiceDeps } from '@helpdesk/kit';
import { customerRefsRules } from './customer-refs/rules';
import type { TicketingModels } from './models';
import { messageRules } from './tickets/messages/rules';
import { ticketsPort } from './tickets/port';
import { businessHoursRules } from './business-hours/rules';
import { systemClock, type Clock } from './clock';
import { memberRules } from './members/rules';
import { slaRules } from './sla/rules';
import { slaBreachScan } from './sla/scheduler';
import { mergeRules } from './tickets/merge/rules';
import { automationRules } from './automations/rules';
import { ticketWriter } from './automations/ticket-writer';
import { aiRules, type AiConfig } from './ai/rules';
import { analyticsRules } from './analytics/rules';
import { DEFAULT_INBOUND_EMAIL, inboundEmailRules, type InboundEmailConfig } from './inbound-email/rules';
import { widgetRules } from './widget/rules';

export interface TicketingConfig {
  /** The customers service's base URL (CUSTOMERS_URL): asked about a ticket's customer by email or name, or by an id the projection has not seen (docs/adr/0055). */
  customersUrl: string;
  /** Where ticket timestamps and SLA clocks read the time (tests set it; docs/adr/0026). */
  clock?: Clock;
  /** How often each replica tries to take the SLA breach scan's lease and scan (default 5 s). */
  slaScanIntervalMs?: number;
  /** The AI provider (docs/adr/0029): an OpenAI-compatible server, or the local one. */
  ai?: AiConfig;
  /** Inbound email's domain, size limit and listeners (docs/adr/0041); default: domain helpdesk.local, no listeners. */
  inboundEmail?: Partial<InboundEmailConfig>;
  /** Mints the tokens inbound email calls the customers service with (the process's internal token secret). */
  tokens?: InternalTokens;
}

/** Every resource's rules, wired once; handlers, consumers and workers share them. */
export function ticketingRules({ conn, models, logger, soleInstance }: ServiceDeps<TicketingModels>, config: TicketingConfig) {
  const clock = config.clock ?? systemClock();
  const customerRefs = customerRefsRules({ conn, models });
  const customFields = customFieldRules({ definitions: models.customFieldDefs, records: models.tickets, contentType: 'ticket', soleInstance });
  const members = memberRules({ models });
  const businessHours = businessHoursRules({ models });
  const sla = slaRules({ conn, models, businessHours, clock, soleInstance });
  const tickets = ticketsPort({ conn, models, customerRefs, customFields, members, sla, clock });
  const merges = mergeRules({ conn, models, tickets, clock, businessHours });
  const slaBreaches = slaBreachScan({ conn, models, tickets, clock, logger, intervalMs: config.slaScanIntervalMs });
  const messages = messageRules({ conn, models, tickets });
  const customers = internalClient(CUSTOMERS_INTERNAL, config.customersUrl, { service: 'customers' });
  const automations = automationRules({ conn, models, members, writer: ticketWriter(tickets), soleInstance });
  const ai = aiRules({ conn, models }, config.ai);
  const analytics = analyticsRules({ models, clock });
  const inboundEmail = inboundEmailRules({ conn, models, tickets, customersUrl: config.customersUrl, tokens: config.tokens, logger, config: { ...DEFAULT_INBOUND_EMAIL, ...config.inboundEmail } });
  const widget = widgetRules({ models, tickets, messages, customersUrl: config.customersUrl, customers });
  return { conn, models, widget, clock, customerRefs, customFields, members, businessHours, sla, slaBreaches, tickets, merges, messages, customers, automations, ai, analytics, inboundEmail };
}
export type TicketingRules = ReturnType<typeof ticketingRules>;
