import { CUSTOMERS_BULK_INTERNAL, CUSTOMERS_INTERNAL, CUSTOMERS_WIDGET_INTERNAL, type EventEnvelope } from '@helpdesk/contracts';
import { customFieldRules, internalClient, type InternalTokens, type ServiceDeps } from '@helpdesk/kit';
import { customerRefsRules } from './customer-refs/rules';
import type { TicketingModels } from './collections';
import { ticketsPort } from './tickets/port';
import { businessHoursRules } from './business-hours/rules';
import { systemClock, type Clock } from './clock';
import { memberRules } from './members/rules';
import { slaClock } from './sla/clock';
import { keepEnabledSlaRules } from './sla/stored';
import { SlaDueTimes, slaBreachScan } from './sla/scheduler';
import type { Subject } from './automations/conditions';
import { runAutomations, type RunAutomationsDeps } from './automations/run';
import { ticketWriter } from './automations/ticket-writer';
import { automationTriggerMatch, keepAutomationTriggers } from './automations/triggers';
import { aiProviderOf, type AiConfig } from './ai/config';
import { factWriter } from './analytics/batches';
import { DEFAULT_INBOUND_EMAIL, type InboundEmailConfig } from './inbound-email/config';
import { mailIntake } from './inbound-email/intake';

export interface TicketingConfig {
  /** The customers service's base URL (CUSTOMERS_URL): asked about a ticket's customer by email or name, or by an id the projection has not seen (docs/adr/0055). */
  customersUrl: string;
  /** Where ticket timestamps and SLA clocks read the time (tests set it; docs/adr/0026). */
  clock?: Clock;
  /** The longest the SLA breach scan sleeps when no ticket is due sooner (default 30 s; docs/adr/0070). */
  slaScanIdleLookMs?: number;
  /** The AI provider (docs/adr/0029): an OpenAI-compatible server, or the local one. */
  ai?: AiConfig;
  /** Inbound email's domain, size limit and listeners (docs/adr/0041); default: domain helpdesk.local, no listeners. */
  inboundEmail?: Partial<InboundEmailConfig>;
  /** Mints the tokens inbound email calls the customers service with (the process's internal token secret). */
  tokens?: InternalTokens;
}

/** Every resource's dependencies and rules, built once; handlers, consumers and workers share them and each use case takes the part it uses. */
export function ticketingRules({ conn, models, logger, soleInstance }: ServiceDeps<TicketingModels>, config: TicketingConfig) {
  const clock = config.clock ?? systemClock();
  const customerRefs = customerRefsRules({ conn, models });
  const customFields = customFieldRules({ definitions: models.customFieldDefs, records: models.tickets, contentType: 'ticket', soleInstance });
  const members = memberRules({ models });
  const businessHours = businessHoursRules({ models });
  const enabledSlaRules = keepEnabledSlaRules(soleInstance);
  // Ticket writes that set a nearer due time wake the breach scan once they commit (docs/adr/0070).
  const slaDueTimes = new SlaDueTimes();
  const sla = slaClock({ models, businessHours, clock, enabledSlaRules, dueTimes: slaDueTimes });
  const tickets = ticketsPort({ conn, models, customerRefs, customFields, members, sla, clock });
  const slaBreaches = slaBreachScan({ conn, models, tickets, clock, logger, dueTimes: slaDueTimes, idleLookMs: config.slaScanIdleLookMs });
  const customers = internalClient(CUSTOMERS_INTERNAL, config.customersUrl, { service: 'customers' });
  const automationTriggers = keepAutomationTriggers(soleInstance);
  const automationDeps: RunAutomationsDeps = {
    conn,
    models,
    members,
    ticketWriter: ticketWriter(tickets),
    automationTriggers,
    triggerMatch: automationTriggerMatch(models, automationTriggers),
  };
  // The trigger events' way in (consumers/automation-triggers.ts; tests run it directly).
  const automations = { onEvent: (e: EventEnvelope, ticketId: string, subject: Omit<Subject, 'ticket'>) => runAutomations(automationDeps, e, ticketId, subject) };
  const aiProvider = aiProviderOf(config.ai);
  const analytics = factWriter({ models });
  const requesters = internalClient(CUSTOMERS_BULK_INTERNAL, config.customersUrl, { service: 'customers' });
  const inboundEmail = mailIntake({ conn, models, tickets, customers, requesters, tokens: config.tokens, logger }, { ...DEFAULT_INBOUND_EMAIL, ...config.inboundEmail });
  const widgetSignUps = internalClient(CUSTOMERS_WIDGET_INTERNAL, config.customersUrl, { service: 'customers' });
  return { conn, models, enabledSlaRules, automationTriggers: automationDeps.automationTriggers, widgetSignUps, clock, customerRefs, customFields, members, businessHours, sla, slaBreaches, tickets, customers, automations, aiProvider, analytics, inboundEmail };
}
export type TicketingRules = ReturnType<typeof ticketingRules>;
