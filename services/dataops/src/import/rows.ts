import { z } from 'zod';
import {
  createArticleBody,
  createCustomerBody,
  createTicketBody,
  updateArticleBody,
  updateCustomerBody,
  updateTicketBody,
  type BulkResource,
  type CustomerSnapshot,
  type ImportRow,
  type ImportRowOutcome,
  type ImportSource,
} from '@helpdesk/contracts';
import { toApiError, type RequestContext } from '@helpdesk/kit';
import type { TransferClients } from '../bulk/clients';
import { mapArticle, mapCustomer, mapTicket } from './mappings';
import type { ImportRecord } from './records';

/** A row's data is checked here first (a refused row creates no requester); its service checks it again. */
const ROW_SCHEMA: Record<BulkResource, { create: z.ZodType; update: z.ZodType }> = {
  tickets: {
    create: createTicketBody.extend({ status: z.enum(['new', 'open', 'pending', 'resolved', 'closed']).optional() }),
    update: updateTicketBody,
  },
  customers: { create: createCustomerBody, update: updateCustomerBody },
  articles: { create: createArticleBody, update: updateArticleBody },
};

export const failed = (rowIndex: number, code: string, message: string): ImportRowOutcome => ({ rowIndex, outcome: 'failed', id: null, code, message: `Row ${rowIndex + 1}: ${message}` });

/** The records' rows as the owning service takes them, and what is known about them before it is asked. */
export interface MappedRows {
  rows: ImportRow[];
  outcomes: ImportRowOutcome[];
  requesters: Map<number, { email: string; name: string | null }>;
  warnings: Map<number, string[]>;
}

/** Each record mapped from its source's fields and checked: skipped and refused ones become outcomes, the rest rows. */
export function mapRows(resource: BulkResource, source: ImportSource, records: ImportRecord[]): MappedRows {
  const out: MappedRows = { rows: [], outcomes: [], requesters: new Map(), warnings: new Map() };
  for (const rec of records) {
    const n = rec.index + 1;
    if (rec.action === 'skip') {
      out.outcomes.push({ rowIndex: rec.index, outcome: 'skipped', id: rec.existingId ?? null, warnings: [`Row ${n}: skipped (action skip).`] });
      continue;
    }
    let data: Record<string, unknown>;
    if (resource === 'tickets') {
      const t = mapTicket(rec.fields, source, n);
      data = t.data;
      if (t.requester) out.requesters.set(rec.index, t.requester);
      if (t.warnings.length) out.warnings.set(rec.index, t.warnings);
    } else data = resource === 'customers' ? mapCustomer(rec.fields) : mapArticle(rec.fields);
    // Rule 4: a customer is found and matched by its email.
    if (resource === 'customers' && rec.action === 'create' && data.email === undefined) {
      out.outcomes.push(failed(rec.index, 'parameter_missing', 'Missing required parameter: email (a customer record needs an email).'));
      continue;
    }
    const schema = ROW_SCHEMA[resource][rec.action];
    const check = schema.safeParse(rec.action === 'update' && resource === 'tickets' ? { ...data, messages: undefined } : data, { reportInput: true });
    if (!check.success) {
      const err = toApiError(check.error);
      out.outcomes.push(failed(rec.index, err.code, err.message));
      continue;
    }
    out.rows.push({ rowIndex: rec.index, action: rec.action, ...(rec.existingId ? { existingId: rec.existingId } : {}), data });
  }
  return out;
}

/** Rule 3: each ticket's requester, found by email or created in the key's partition; a row whose requester is refused fails. */
export async function attachRequesters(clients: Pick<TransferClients, 'ensureRequesters'>, ctx: RequestContext, token: string, { rows, requesters, outcomes }: MappedRows): Promise<void> {
  const wanted = rows.map((r) => requesters.get(r.rowIndex)).filter((r) => r !== undefined);
  const found = new Map<string, { customer: CustomerSnapshot | null; error?: string }>();
  if (wanted.length) for (const c of await clients.ensureRequesters(ctx, token, { requesters: wanted })) found.set(c.email.toLowerCase(), c);
  for (let i = rows.length - 1; i >= 0; i--) {
    const requester = requesters.get(rows[i].rowIndex);
    if (!requester) continue;
    const answer = found.get(requester.email.toLowerCase());
    if (answer?.customer) rows[i].customer = answer.customer;
    else {
      outcomes.push(failed(rows[i].rowIndex, 'parameter_invalid', `Invalid requester email '${requester.email}': ${answer?.error ?? 'refused'}`));
      rows.splice(i, 1);
    }
  }
}
