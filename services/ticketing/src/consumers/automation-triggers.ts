import { on, type Subscription } from '@helpdesk/kit';
import type { TicketingRules } from '../rules';

/** The trigger events (docs/adr/0028): each runs the partition's rules for its type once. */
export const automationTriggerConsumers = (automations: TicketingRules['automations']): Subscription[] => [
  on('ticket.created', (e) => automations.onEvent(e, e.data.ticket.id, {})),
  on('ticket.updated', (e) => automations.onEvent(e, e.data.ticket.id, { changes: e.data.changes, previous: e.data.previous, eventTicket: e.data.ticket })),
  on('ticket.closed', (e) => automations.onEvent(e, e.data.ticket.id, {})),
  on('ticket.assigned', (e) => automations.onEvent(e, e.data.ticket.id, {})),
  on('ticket.message_added', (e) => automations.onEvent(e, e.data.ticket.id, { message: e.data.message })),
];
