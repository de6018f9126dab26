import type { z } from 'zod';
import type { CustomerGroupSnapshot, customerGroupSchema } from '@helpdesk/contracts';
import type { Unscoped } from '@helpdesk/kit';
import type { GroupDoc } from './model';

/** The spec's Customer group, with `object: 'customer_group'`. */
export type CustomerGroupView = z.output<typeof customerGroupSchema>;

export function groupSnapshot(g: Unscoped<GroupDoc>): CustomerGroupSnapshot {
  return {
    id: g._id,
    name: g.name,
    slug: g.slug,
    description: g.description ?? null,
    externalId: g.externalId ?? null,
    customFields: { ...(g.customFields ?? {}) },
    customerCount: g.customerCount ?? 0,
    createdAt: new Date(g.createdAt).toISOString(),
    updatedAt: new Date(g.updatedAt).toISOString(),
  };
}

export function groupView(g: Unscoped<GroupDoc>): CustomerGroupView {
  const { id, ...rest } = groupSnapshot(g);
  return { id, object: 'customer_group', ...rest };
}
