import type { TicketSnapshot, TicketView } from '@helpdesk/contracts';
import type { Unscoped } from '@helpdesk/kit';
import type { CustomerSummary } from '../customer-refs/model';
import type { MessageDoc } from './messages/model';
import { messageView } from './messages/view';
import { slaView } from '../sla/state';
import type { TicketDoc } from './model';

/** A stored date as the JSON's ISO string (a Date from the driver; anything a Date takes otherwise), null for none. */
const iso = (d: Date | null) => (d ? (d instanceof Date ? d : new Date(d)).toISOString() : null);

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
 * The spec's Ticket (contracts' `ticketSchema`), nothing internal: the snapshot's fields without the
 * revision (which orders events), in the snapshot's order, built in one pass (the list builds twenty
 * a request: docs/adr/0077). `customer` (expand[]=customer) is the projection's summary, null when
 * the ticket has none; `messages` where the operation includes them.
 */
export function ticketView(t: Unscoped<TicketDoc>, extra: { messages?: Unscoped<MessageDoc>[]; customer?: CustomerSummary | null } = {}): TicketView {
  const view: TicketView = {
    id: t._id,
    title: t.title,
    status: t.status,
    priority: t.priority,
    customerId: t.customerId ?? null,
    assignedTo: t.assignedTo ?? null,
    tags: t.tags ? [...t.tags] : [],
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
    resolvedAt: iso(t.resolvedAt),
    closedAt: iso(t.closedAt),
  };
  if (extra.customer !== undefined) view.customer = extra.customer;
  if (extra.messages) view.messages = extra.messages.map(messageView);
  return view;
}
