import { AI_ACTIONS_OPERATIONS } from './ai';
import { ANALYTICS } from './analytics';
import { AUTOMATIONS } from './automations';
import { SLA_RULES } from './sla-rules';
import { TICKETS } from './tickets';

/** The ticketing service's operations, one file per resource (docs/adr/0009). */
export * from './tickets';
export * from './sla-rules';
export * from './automations';
export * from './ai';
export * from './analytics';
export * from './inbound-email';
export * from './widget';
export * from './dataops';

export const TICKETING = { ...TICKETS, ...SLA_RULES };
/** Automations, AI actions and analytics (docs/adr/0028, 0029, 0030): they act on and read tickets inside ticketing's own transactions. */
export const TICKETING_AUTOMATIONS = { ...AUTOMATIONS, ...AI_ACTIONS_OPERATIONS, ...ANALYTICS };
