import { z } from 'zod';
import {
  createArticleBody,
  createCustomerBody,
  createTicketBody,
  DATAOPS,
  updateArticleBody,
  updateCustomerBody,
  updateTicketBody,
  type BulkResource,
  type CustomerSnapshot,
  type ImportResult,
  type ImportRow,
  type ImportRowOutcome,
} from '@helpdesk/contracts';
import { handlersFor, newId, scoped, toApiError, type RequestContext } from '@helpdesk/kit';
import { MANAGE_PERMISSION, requirePermissions } from '../access';
import type { TransferClients } from '../bulk/clients';
import { mapArticle, mapCustomer, mapTicket, RESOURCE_OF } from './mappings';
import type { DataopsModels } from '../models';
import { importLogView, type ImportLogDoc } from './model';
import { refuseHistory, unwrap } from './records';

const ENTITY = { tickets: 'ticket', customers: 'customer', articles: 'article' } as const;

/** A row's data is checked here first (a refused row creates no requester); its service checks it again. */
const ROW_SCHEMA: Record<BulkResource, { create: z.ZodType; update: z.ZodType }> = {
  tickets: {
    create: createTicketBody.extend({ status: z.enum(['new', 'open', 'pending', 'resolved', 'closed']).optional() }),
    update: updateTicketBody,
  },
  customers: { create: createCustomerBody, update: updateCustomerBody },
  articles: { create: createArticleBody, update: updateArticleBody },
};

const failed = (rowIndex: number, code: string, message: string): ImportRowOutcome => ({ rowIndex, outcome: 'failed', id: null, code, message: `Row ${rowIndex + 1}: ${message}` });

/** `POST /import` and `GET /import` (docs/adr/0037). */
export const importHandlers = (clients: TransferClients, models: Pick<DataopsModels, 'importLogs'>) =>
  handlersFor(DATAOPS)({
    importRecords: async ({ ctx, body, token }) => {
      const started = Date.now();
      const resource = RESOURCE_OF[body.resource];
      requirePermissions(ctx, [MANAGE_PERMISSION[resource]]);

      // Rules 2, 5, 6: every record is checked before any is written (a 400 leaves nothing behind).
      const records = body.records.map((r, i) => {
        const rec = unwrap(r, i);
        if (resource === 'tickets' && rec.action !== 'skip') refuseHistory(r, i);
        return rec;
      });

      const outcomes: ImportRowOutcome[] = [];
      const rows: ImportRow[] = [];
      const requesters = new Map<number, { email: string; name: string | null }>();
      const warnings = new Map<number, string[]>();
      for (const rec of records) {
        const n = rec.index + 1;
        if (rec.action === 'skip') {
          outcomes.push({ rowIndex: rec.index, outcome: 'skipped', id: rec.existingId ?? null, warnings: [`Row ${n}: skipped (action skip).`] });
          continue;
        }
        let data: Record<string, unknown>;
        if (resource === 'tickets') {
          const t = mapTicket(rec.fields, body.source, n);
          data = t.data;
          if (t.requester) requesters.set(rec.index, t.requester);
          if (t.warnings.length) warnings.set(rec.index, t.warnings);
        } else data = resource === 'customers' ? mapCustomer(rec.fields) : mapArticle(rec.fields);
        // Rule 4: a customer is found and matched by its email.
        if (resource === 'customers' && rec.action === 'create' && data.email === undefined) {
          outcomes.push(failed(rec.index, 'parameter_missing', 'Missing required parameter: email (a customer record needs an email).'));
          continue;
        }
        const schema = ROW_SCHEMA[resource][rec.action];
        const check = schema.safeParse(rec.action === 'update' && resource === 'tickets' ? { ...data, messages: undefined } : data, { reportInput: true });
        if (!check.success) {
          const err = toApiError(check.error);
          outcomes.push(failed(rec.index, err.code, err.message));
          continue;
        }
        rows.push({ rowIndex: rec.index, action: rec.action, ...(rec.existingId ? { existingId: rec.existingId } : {}), data });
      }

      // Rule 3: each ticket's requester, found by email or created in the key's partition.
      if (resource === 'tickets' && rows.length) {
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

      if (rows.length) outcomes.push(...(await clients.call(resource, 'importRows', ctx, token, { mergeStrategy: body.mergeStrategy, rows })).outcomes);
      return record(ctx, models, body, resource, outcomes, warnings, started);
    },

    listImports: async ({ ctx, query }) => {
      const db = scoped(models, ctx);
      const filter = query.resource ? { resource: query.resource } : {};
      const [total, rows] = await Promise.all([
        db.importLogs.countDocuments(filter),
        db.importLogs
          .find(filter, { teamId: 0, mode: 0 })
          .sort({ createdAt: -1, _id: -1 })
          .skip((query.page - 1) * query.pageSize)
          .limit(query.pageSize)
          .lean<ImportLogDoc[]>(),
      ]);
      const totalPages = Math.ceil(total / query.pageSize);
      return { data: rows.map(importLogView), pagination: { page: query.page, pageSize: query.pageSize, total, totalPages, hasMore: query.page < totalPages } };
    },
  });

/** The answer and its log entry, rows in request order. */
async function record(
  ctx: RequestContext,
  models: Pick<DataopsModels, 'importLogs'>,
  body: { records: unknown[]; source: ImportLogDoc['source']; mergeStrategy: ImportLogDoc['mergeStrategy'] },
  resource: BulkResource,
  outcomes: ImportRowOutcome[],
  mapWarnings: Map<number, string[]>,
  started: number,
): Promise<ImportResult> {
  outcomes.sort((a, b) => a.rowIndex - b.rowIndex);
  const count = (o: ImportRowOutcome['outcome']) => outcomes.filter((r) => r.outcome === o).length;
  // What a saved row lacks (no requester, no description); a skipped or failed row says only why.
  const saved = (o: ImportRowOutcome) => o.outcome === 'created' || o.outcome === 'updated';
  const warnings = outcomes.flatMap((o) => [...(saved(o) ? (mapWarnings.get(o.rowIndex) ?? []) : []), ...(o.warnings ?? [])]);
  const log: Omit<ImportLogDoc, 'teamId' | 'mode'> = {
    _id: newId('importLog'),
    resource,
    status: count('failed') ? 'completed_with_errors' : 'completed',
    source: body.source,
    mergeStrategy: body.mergeStrategy,
    totalRecords: body.records.length,
    created: count('created'),
    updated: count('updated'),
    skipped: count('skipped'),
    failed: count('failed'),
    createdAt: new Date(),
  };
  await scoped(models, ctx).importLogs.create(log);
  return {
    object: 'import_result',
    logId: log._id,
    entityType: ENTITY[resource],
    success: log.failed === 0,
    total: body.records.length,
    created: log.created,
    updated: log.updated,
    skipped: log.skipped,
    failed: log.failed,
    createdIds: outcomes.filter((o) => o.outcome === 'created' && o.id).map((o) => ({ rowIndex: o.rowIndex, id: o.id! })),
    errors: outcomes.filter((o) => o.outcome === 'failed').map((o) => ({ rowIndex: o.rowIndex, code: o.code ?? 'parameter_invalid', message: o.message ?? `Row ${o.rowIndex + 1}: refused.` })),
    durationMs: Date.now() - started,
    warnings,
  };
}
