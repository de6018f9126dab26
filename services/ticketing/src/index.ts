import { startService, type RunningService, type ServiceOptions } from '@helpdesk/kit';
import type { TicketingConfig, TicketingRules } from './rules';
import { ticketingService } from './service';

export { ticketingService } from './service';
export type { TicketingConfig, TicketingRules } from './rules';

export type TicketingOptions = ServiceOptions & TicketingConfig;
export type RunningTicketing = RunningService<TicketingRules>;

/** Connects (database `ticketing` by default), builds indexes, starts the outbox relay and the consumers, and listens. */
export function startTicketing(opts: TicketingOptions): Promise<RunningTicketing> {
  return startService(ticketingService({ customersUrl: opts.customersUrl, ai: opts.ai, inboundEmail: opts.inboundEmail, tokens: opts.tokens }), opts);
}
