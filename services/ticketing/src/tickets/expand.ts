import type { Expandable } from '@helpdesk/contracts';
import { scoped, type Scope } from '@helpdesk/kit';
import { customerSummary, type CustomerRefDoc, type CustomerSummary } from '../customer-refs/model';
import type { TicketingModels } from '../collections';
import type { TicketDoc } from './model';

/** What a read asked to expand (`expand[]` and `expand` both count). */
export const expansions = (q: { 'expand[]'?: Expandable[]; expand?: Expandable[] }) => new Set<Expandable>([...(q['expand[]'] ?? []), ...(q.expand ?? [])]);

/** The projection's summaries of the tickets' customers (deleted or unknown ones are absent). */
export async function customersOf({ models }: { models: TicketingModels }, scope: Scope, rows: TicketDoc[]): Promise<Map<string, CustomerSummary>> {
  const ids = [...new Set(rows.map((t) => t.customerId).filter((id): id is string => !!id))];
  if (!ids.length) return new Map();
  const refs = await scoped(models, scope).customerRefs.find({ _id: { $in: ids }, deleted: false }).lean<CustomerRefDoc[]>();
  return new Map(refs.map((r) => [r._id, customerSummary(r)]));
}

export const customerOf = (customers: Map<string, CustomerSummary>, t: TicketDoc) => (t.customerId ? (customers.get(t.customerId) ?? null) : null);
