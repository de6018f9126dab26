import type { TicketSnapshot, TicketView } from '@helpdesk/contracts';
import type { Unscoped } from '@helpdesk/kit';
import type { CustomerSummary } from '../customer-refs/model';
import type { MessageDoc } from './messages/model';
import { messageView } from './messages/view';
import { slaView } from '../sla/state';
import type { TicketDoc } from './model';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** The ticket as events carry it (the public JSON is `ticketView`). */
export function ticketSnapshot(t: Unscoped<TicketDoc>): TicketSnapshot {
  return {
    id: t._id,
    title: t.title,
    status: t.status,
    priority: t.priority,
    customerId: t.customerId ?? null,
    assignedTo: t.assignedTo ?? null,
    tags: [...(t.tags ?? [])],
    notes: t.notes ?? null,
    messageCount: t.messageCount,
    metadata: { ...(t.metadata ?? {}) },
    customFields: { ...(t.customFields ?? {}) },
    channel: t.channel ?? 'api',
    openedBy: t.openedBy ?? 'member',
    sla: slaView(t.sla),
    mergedInto: t.mergedInto ?? null,
    createdAt: iso(t.createdAt)!,
    updatedAt: iso(t.updatedAt)!,
    revision: t.rev ?? 0,
    resolvedAt: iso(t.resolvedAt),
    closedAt: iso(t.closedAt),
  };
}

/**
 * The spec's Ticket (contracts' `ticketSchema`), nothing internal. `customer` (expand[]=customer) is
 * the projection's summary, null when the ticket has none; `messages` where the operation includes them.
 */
export function ticketView(t: Unscoped<TicketDoc>, extra: { messages?: Unscoped<MessageDoc>[]; customer?: CustomerSummary | null } = {}): TicketView {
  // The revision orders events; the public ticket does not carry it.
  const { revision: _revision, ...snap } = ticketSnapshot(t);
  return {
    ...snap,
    openedBy: snap.openedBy ?? 'member',
    sla: snap.sla ?? null,
    mergedInto: snap.mergedInto ?? null,
    customFields: { ...(t.customFields ?? {}) },
    ...(extra.customer !== undefined ? { customer: extra.customer } : {}),
    ...(extra.messages ? { messages: extra.messages.map(messageView) } : {}),
  };
}
