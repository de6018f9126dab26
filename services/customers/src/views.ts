import type { CustomerGroupSnapshot, CustomerSnapshot } from '@helpdesk/contracts';
import { iso } from './common';
import type { CustomerDoc } from './customers/model';
import type { GroupDoc } from './groups/model';
import type { MembershipDoc } from './members/model';

/** Public JSON and event snapshots of every resource, in one place. */

/** The event snapshot (and the internal endpoints' answer): the public customer plus `rev`. */
export function customerSnapshot(c: CustomerDoc): CustomerSnapshot {
  return {
    id: c._id,
    name: c.name,
    email: c.email ?? null,
    status: c.status,
    sentiment: c.sentiment,
    tags: [...(c.tags ?? [])],
    notes: c.notes ?? null,
    metadata: { ...(c.metadata ?? {}) },
    // In flight, a ticket.deleted may be applied before its ticket.created (increments commute).
    ticketCount: Math.max(0, c.ticketCount ?? 0),
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
    rev: c.rev ?? 0,
  };
}

/** The spec's Customer: exactly id, name, email, status, sentiment, tags, notes, metadata, ticketCount, createdAt, updatedAt. */
export function customerView(c: CustomerDoc): Omit<CustomerSnapshot, 'rev'> {
  const { rev: _rev, ...pub } = customerSnapshot(c);
  return pub;
}

export function groupSnapshot(g: GroupDoc): CustomerGroupSnapshot {
  return {
    id: g._id,
    name: g.name,
    slug: g.slug,
    description: g.description ?? null,
    externalId: g.externalId ?? null,
    customFields: { ...(g.customFields ?? {}) },
    customerCount: g.customerCount ?? 0,
    createdAt: iso(g.createdAt),
    updatedAt: iso(g.updatedAt),
  };
}

/** The spec's Customer group, with `object: 'customer_group'`. */
export function groupView(g: GroupDoc) {
  const { id, ...rest } = groupSnapshot(g);
  return { id, object: 'customer_group' as const, ...rest };
}

/** A member entry as events carry it: `{id, name, email, joinedGroupAt}`. */
export function memberSnapshot(m: Pick<MembershipDoc, 'joinedGroupAt'>, c: Pick<CustomerDoc, '_id' | 'name' | 'email'>) {
  return { id: c._id, name: c.name, email: c.email ?? null, joinedGroupAt: iso(m.joinedGroupAt) };
}

/** The spec's group member entry: `{id, object: 'customer', name, email, joinedGroupAt}`. */
export function memberView(m: Pick<MembershipDoc, 'joinedGroupAt'>, c: Pick<CustomerDoc, '_id' | 'name' | 'email'>) {
  const { id, ...rest } = memberSnapshot(m, c);
  return { id, object: 'customer' as const, ...rest };
}
