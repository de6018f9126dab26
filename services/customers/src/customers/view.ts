import type { z } from 'zod';
import type { customerSchema, CustomerSnapshot } from '@helpdesk/contracts';
import type { Unscoped } from '@helpdesk/kit';
import type { CustomerDoc } from './model';

/** The spec's Customer: exactly id, name, email, status, sentiment, tags, notes, metadata, ticketCount, createdAt, updatedAt. */
export type CustomerView = z.output<typeof customerSchema>;

/** The event snapshot (and the internal operations' answer): the public customer plus `rev`. */
export function customerSnapshot(c: Unscoped<CustomerDoc>): CustomerSnapshot {
  return {
    id: c._id,
    name: c.name,
    email: c.email ?? null,
    status: c.status,
    sentiment: c.sentiment,
    tags: [...(c.tags ?? [])],
    notes: c.notes ?? null,
    metadata: { ...(c.metadata ?? {}) },
    customFields: { ...(c.customFields ?? {}) },
    // In flight, a ticket.deleted may be applied before its ticket.created (increments commute).
    ticketCount: Math.max(0, c.ticketCount ?? 0),
    createdAt: new Date(c.createdAt).toISOString(),
    updatedAt: new Date(c.updatedAt).toISOString(),
    rev: c.rev ?? 0,
  };
}

export function customerView(c: Unscoped<CustomerDoc>): CustomerView {
  const { rev: _rev, ...pub } = customerSnapshot(c);
  return { ...pub, customFields: pub.customFields ?? {} };
}
