import { z } from 'zod';
import { customerSnapshotSchema } from '../../catalog/customers';
import { paginationFields, queryInt } from '../../fields';
import { defineOperations } from '../operation';
import { customerSchema } from '../customers/customers';
import { articleSchema } from '../knowledge/articles';
import { ticketSchema } from '../ticketing/tickets';

/**
 * What dataops asks the owning services for bulk, export and import (docs/adr/0036, 0037): each
 * service does the work on its own records with its own rules, validation and events, exactly as
 * for one request; dataops only fans out, merges and answers. Service-to-service only.
 */

export const BULK_RESOURCES = ['tickets', 'customers', 'articles'] as const;
export type BulkResource = (typeof BULK_RESOURCES)[number];
export const BULK_IDS_MAX = 100;

/** One id that failed alone: the code and message a single request for it would have answered. */
export const rowErrorSchema = z.object({ id: z.string(), code: z.string(), message: z.string() }).meta({ id: 'BulkError' });

/** `data` has already been validated by dataops as the resource's PATCH body; the service validates it again. */
export const internalBulkBody = z.strictObject({
  action: z.enum(['update', 'delete']),
  ids: z.array(z.string().min(1).max(100)).min(1).max(BULK_IDS_MAX),
  data: z.record(z.string(), z.unknown()).optional(),
});
export type InternalBulkInput = z.output<typeof internalBulkBody>;
export const internalBulkAnswer = z.object({ succeeded: z.array(z.string()), errors: z.array(rowErrorSchema) });
export type InternalBulkAnswer = z.output<typeof internalBulkAnswer>;

/** A position in an export: the sort time and the id after which the next page starts. */
export const exportPositionSchema = z.object({ at: z.iso.datetime(), id: z.string() });
export type ExportPosition = z.output<typeof exportPositionSchema>;

export const EXPORT_PAGE_MAX = 1_000;

/**
 * One page of a resource's export. `order: created` is the full export (createdAt, id ascending,
 * filtered); `order: updated` is the incremental export (updatedAt, id ascending, changed before
 * `until`). Rows are the resource's public JSON, as its GET answers it.
 */
export const exportPageBody = z.strictObject({
  order: z.enum(['created', 'updated']),
  after: exportPositionSchema.nullable(),
  until: z.iso.datetime().optional(),
  limit: z.number().int().min(1).max(EXPORT_PAGE_MAX),
  /** Rows to pass over after `after` (a CSV export's continuation cursor counts rows). */
  skip: z.number().int().min(0).max(10_000_000).optional(),
  /** Also answer `remaining`: how many rows match after `after` (skip not deducted). */
  count: z.boolean().optional(),
  filters: z
    .strictObject({
      status: z.string().max(64).optional(),
      priority: z.string().max(16).optional(),
      createdAfter: z.iso.datetime().optional(),
      createdBefore: z.iso.datetime().optional(),
    })
    .optional(),
});
export type ExportPageInput = z.output<typeof exportPageBody>;
export const exportPageAnswer = z.object({ rows: z.array(z.record(z.string(), z.unknown())), last: exportPositionSchema.nullable(), remaining: z.number().int().optional() });
export type ExportPageAnswer = z.output<typeof exportPageAnswer>;

export const MERGE_STRATEGIES = ['skip', 'update', 'fail'] as const;
export type MergeStrategy = (typeof MERGE_STRATEGIES)[number];

/**
 * One import row as dataops hands it over: already mapped from the vendor's shape (docs/adr/0037)
 * and checked against rules 1–7. `action`: `create` (the merge strategy decides what a match does),
 * `update` (`existingId`, or the match key, must name a record). `data` is validated by the service.
 */
export const importRowSchema = z.object({
  rowIndex: z.number().int().min(0),
  action: z.enum(['create', 'update']),
  existingId: z.string().max(100).optional(),
  data: z.record(z.string(), z.unknown()),
  /** A ticket's requester (rule 3), as the customers service found or created it (ensureRequesters). */
  customer: customerSnapshotSchema.nullable().optional(),
});
export type ImportRow = z.output<typeof importRowSchema>;

export const importRowsBody = z.strictObject({
  mergeStrategy: z.enum(MERGE_STRATEGIES),
  rows: z.array(importRowSchema).max(500),
});
export type ImportRowsInput = z.output<typeof importRowsBody>;

export const importRowOutcomeSchema = z.object({
  rowIndex: z.number().int(),
  outcome: z.enum(['created', 'updated', 'skipped', 'failed']),
  id: z.string().nullable(),
  code: z.string().optional(),
  message: z.string().optional(),
  /** `Row N: …` lines (saved with something missing, or skipped as a duplicate). */
  warnings: z.array(z.string()).optional(),
});
export type ImportRowOutcome = z.output<typeof importRowOutcomeSchema>;
export const importRowsAnswer = z.object({ outcomes: z.array(importRowOutcomeSchema) });

/** Ticket import's requesters: found by email (case-insensitive) or created, one answer per email. */
export const ensureRequestersBody = z.strictObject({
  requesters: z.array(z.object({ email: z.email().max(254), name: z.string().max(255).nullable() })).max(500),
});
export const ensureRequestersAnswer = z.object({
  customers: z.array(z.object({ email: z.string(), customer: customerSnapshotSchema.nullable(), error: z.string().optional() })),
});

export const bulkInternalBase = { internal: true, keys: 'secret', params: {}, method: 'POST' } as const;
/**
 * An import's rows as dataops hands them on: the public body (at most 10 MB, IMPORT_BODY_MAX_BYTES)
 * mapped, each ticket row with its requester's snapshot added, so more than the services' 1 MB default.
 */
const INTERNAL_IMPORT_BODY_MAX_BYTES = 24 * 1024 * 1024;
export const BULK_INTERNAL_ERRORS = ['parameter_missing', 'parameter_invalid'] as const;

/** The same three operations for each owning service, under its own name and permission. */
export function bulkOperationsOf<S extends string, R extends BulkResource>(service: S, resource: R, tag: string) {
  const manage = `manage_${resource}` as const;
  const view = `view_${resource}` as const;
  return {
    bulk: {
      ...bulkInternalBase,
      service,
      tag,
      path: `/internal/bulk/${resource}`,
      summary: `Update or delete up to 100 ${resource}, each through its normal rules and events`,
      permission: manage,
      body: internalBulkBody,
      success: { status: 200, data: internalBulkAnswer, shape: 'envelope' },
      errors: BULK_INTERNAL_ERRORS,
    },
    exportPage: {
      ...bulkInternalBase,
      service,
      tag,
      path: `/internal/export/${resource}`,
      summary: `A page of ${resource} for the export (full or incremental)`,
      permission: view,
      body: exportPageBody,
      success: { status: 200, data: exportPageAnswer, shape: 'envelope' },
      errors: BULK_INTERNAL_ERRORS,
    },
    importRows: {
      ...bulkInternalBase,
      service,
      tag,
      path: `/internal/import/${resource}`,
      summary: `Import mapped ${resource} rows with the merge strategy`,
      permission: manage,
      body: importRowsBody,
      bodyLimitBytes: INTERNAL_IMPORT_BODY_MAX_BYTES,
      success: { status: 200, data: importRowsAnswer, shape: 'envelope' },
      errors: BULK_INTERNAL_ERRORS,
    },
  } as const;
}
// ---------- the public operations (dataops, docs/adr/0036, 0037) ----------

const resourceField = z.enum(BULK_RESOURCES);

export const bulkBody = z.strictObject({
  action: z.enum(['update', 'delete']),
  resource: resourceField,
  ids: z
    .array(z.string().min(1).max(100))
    .min(1)
    .max(BULK_IDS_MAX)
    .meta({ description: `At most ${BULK_IDS_MAX}; a repeated id counts once.` }),
  data: z.record(z.string(), z.unknown()).optional().meta({ description: "Required for update: validated as the resource's PATCH body." }),
});
export type BulkInput = z.output<typeof bulkBody>;

export const bulkResultSchema = z
  .object({
    object: z.literal('bulk_result'),
    action: z.enum(['update', 'delete']),
    resource: resourceField,
    total: z.number().int(),
    succeeded: z.number().int(),
    failed: z.number().int(),
    succeededIds: z.array(z.string()),
    errors: z.array(rowErrorSchema),
  })
  .meta({ id: 'BulkResult' });

export const EXPORT_ROWS_MAX = 10_000;
export const EXPORT_FORMATS = ['json', 'csv'] as const;

export const exportFiltersSchema = z.strictObject({
  status: z.string().min(1).max(64).optional().meta({ description: "Each resource's own status (ticket status, customer status key, article status)." }),
  priority: z.enum(['low', 'normal', 'high', 'urgent']).optional().meta({ description: 'Tickets only; other resources ignore it.' }),
  createdAfter: z.iso.datetime({ offset: true }).optional(),
  createdBefore: z.iso.datetime({ offset: true }).optional(),
});
export type ExportFilters = z.output<typeof exportFiltersSchema>;

export const exportBody = z.strictObject({
  resources: z.array(resourceField).min(1).max(3).optional(),
  format: z.enum(EXPORT_FORMATS).optional(),
  filters: exportFiltersSchema.optional(),
  cursor: z.string().min(1).max(2_000).optional().meta({ description: "An answer's `nextCursors` value: continues that resource's export after its first 10,000 rows." }),
});
export type ExportInput = z.output<typeof exportBody>;

const perResource = <T extends z.ZodType>(t: T) => z.object({ tickets: t.optional(), customers: t.optional(), articles: t.optional() });

/** The JSON export (the CSV one is the same rows as text): one array per exported resource. */
export const exportSchema = z
  .object({
    object: z.literal('export'),
    format: z.enum(EXPORT_FORMATS),
    exportedAt: z.string(),
    teamId: z.string(),
    tickets: z.array(ticketSchema).optional(),
    customers: z.array(customerSchema).optional(),
    articles: z.array(articleSchema).optional(),
    summary: perResource(z.number().int()),
    hasMore: perResource(z.boolean()),
    nextCursors: perResource(z.string().nullable()),
    error: z
      .object({ resource: resourceField, code: z.string(), message: z.string() })
      .optional()
      .meta({
        description:
          'Present only when an owning service failed after the 200 was sent (docs/adr/0036): the rows before it are whole, ' +
          '`summary` counts them, and `hasMore`/`nextCursors` of that resource and of every resource after it continue the export.',
      }),
  })
  .meta({ id: 'Export' });

export const INCREMENTAL_LIMIT_MAX = 1_000;

export const incrementalExportQuery = z.strictObject({
  resource: resourceField,
  cursor: z.string().min(1).max(2_000).optional(),
  startTime: z.iso.datetime({ offset: true }).optional(),
  limit: queryInt().pipe(z.number().int().min(1).max(INCREMENTAL_LIMIT_MAX)).optional().default(INCREMENTAL_LIMIT_MAX),
});
export type IncrementalExportQuery = z.output<typeof incrementalExportQuery>;

export const incrementalExportSchema = z
  .object({
    object: z.literal('incremental_export'),
    resource: resourceField,
    records: z.array(z.record(z.string(), z.unknown())),
    deletions: z.array(z.object({ id: z.string(), deletedAt: z.string() })),
    count: z.number().int(),
    cursor: z.string(),
    endOfStream: z.boolean(),
  })
  .meta({ id: 'IncrementalExport' });

export const IMPORT_RECORDS_MAX = 500;
export const IMPORT_SOURCES = ['helpdesk', 'zendesk', 'freshdesk', 'intercom', 'helpscout'] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];

export const importBody = z.strictObject({
  resource: z.enum(['tickets', 'customers', 'articles', 'ticket', 'customer', 'article']),
  records: z.array(z.record(z.string(), z.unknown())).min(1).max(IMPORT_RECORDS_MAX),
  mergeStrategy: z.enum(MERGE_STRATEGIES).optional().default('skip'),
  source: z.enum(IMPORT_SOURCES).optional().default('helpdesk'),
});
export type ImportInput = z.output<typeof importBody>;

export const importResultSchema = z
  .object({
    object: z.literal('import_result'),
    logId: z.string(),
    entityType: z.enum(['ticket', 'customer', 'article']),
    success: z.boolean(),
    total: z.number().int(),
    created: z.number().int(),
    updated: z.number().int(),
    skipped: z.number().int(),
    failed: z.number().int(),
    createdIds: z.array(z.object({ rowIndex: z.number().int(), id: z.string() })),
    errors: z.array(z.object({ rowIndex: z.number().int(), code: z.string(), message: z.string() })),
    durationMs: z.number().int(),
    warnings: z.array(z.string()),
  })
  .meta({ id: 'ImportResult' });
export type ImportResult = z.output<typeof importResultSchema>;

export const importLogSchema = z
  .object({
    id: z.string(),
    resource: z.enum(BULK_RESOURCES),
    status: z.enum(['completed', 'completed_with_errors']),
    source: z.enum(IMPORT_SOURCES),
    mergeStrategy: z.enum(MERGE_STRATEGIES),
    totalRecords: z.number().int(),
    created: z.number().int(),
    updated: z.number().int(),
    skipped: z.number().int(),
    failed: z.number().int(),
    createdAt: z.string(),
  })
  .meta({ id: 'ImportLog' });
export type ImportLogView = z.output<typeof importLogSchema>;

export const listImportsQuery = z.strictObject({ resource: resourceField.optional(), ...paginationFields(20, 100) });
export type ListImportsQuery = z.output<typeof listImportsQuery>;

const dataops = { service: 'dataops', keys: 'secret', params: { teamId: 'team' } } as const;
const IMPORT_BODY_MAX_BYTES = 10 * 1024 * 1024;

/** dataops' public bulk, export and import operations (spread into DATAOPS, dataops.ts). */
export const DATAOPS_TRANSFER = defineOperations({
  bulk: {
    ...dataops,
    tag: 'Bulk',
    method: 'POST',
    path: '/teams/{teamId}/bulk',
    summary: 'Update or delete up to 100 tickets, customers or articles',
    description:
      'Each id goes through the resource\'s own rules and events, exactly as `PATCH` or `DELETE` of that id would (docs/adr/0036): ' +
      '`ticket.updated`/`ticket.closed`, `customer.updated`, `article.updated`, the `*.deleted` events. `data` is required for ' +
      '`update` (400 `parameter_missing`, param data) and refused for `delete`; it is validated as the resource\'s PATCH body ' +
      'before anything is written (param `data.<field>`). At most 100 ids (a repeated id counts once). An id that fails fails ' +
      'alone, in `errors` as `{id, code, message}` with the code the single request would answer: `resource_not_found` (unknown, ' +
      'another team, the other partition), `parameter_invalid` (a rule of that record, e.g. a title over 255 characters, ' +
      '`merged` status), `resource_conflict` (a customer email taken). Needs `manage_<resource>`.',
    permission: null,
    body: bulkBody,
    success: { status: 200, data: bulkResultSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'idempotency_key_in_use'],
  },
  exportData: {
    ...dataops,
    tag: 'Export',
    method: 'POST',
    path: '/teams/{teamId}/export',
    summary: 'Export tickets, customers and articles (JSON or CSV), streamed',
    description:
      '`resources` defaults to all three for JSON; `format: csv` takes exactly one resource (two is 400, param resources). ' +
      '`filters` are shared: `status` is each resource\'s own status, `priority` applies to tickets only, ' +
      '`createdAfter` (inclusive) and `createdBefore` (exclusive) to all. Rows are oldest first (createdAt, then id). The answer ' +
      'is streamed as it is read (docs/adr/0036): JSON is the envelope whose `data` holds one array per resource, then ' +
      '`summary` (rows per resource), `hasMore` and `nextCursors`; CSV (RFC 4180, header row, `text/csv`, formulas escaped) ' +
      'has one row per record, lists joined with `;` and objects as JSON. At most 10,000 rows per resource: beyond that ' +
      '`hasMore.<resource>` is true and `nextCursors.<resource>` continues (send it as `cursor`, alone or with that one ' +
      'resource; the cursor carries the filters). For CSV the same two are the headers `X-Export-Has-More` and ' +
      '`X-Export-Next-Cursor`. A failure after the 200 is sent: JSON ends with `data.error` `{resource, code, message}` ' +
      '(still a whole JSON document; the cursors continue from the last row written); CSV is cut short (no final chunk). ' +
      'Needs `import_export` and the view permission of every exported resource.',
    permission: 'import_export',
    body: exportBody,
    stream: 'download',
    success: { status: 200, data: exportSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json'],
  },
  exportIncremental: {
    ...dataops,
    tag: 'Export',
    method: 'GET',
    path: '/teams/{teamId}/export/incremental',
    summary: 'Incremental export: every record changed or deleted since a cursor',
    description:
      'As Zendesk\'s cursor-based incremental export (docs/adr/0036): the records of `resource` created or updated after the ' +
      'cursor, oldest change first (updatedAt, then id), as the resource\'s GET answers them, and `deletions` (`{id, ' +
      'deletedAt}`, tombstones kept 90 days) recorded after it. Start without a cursor (everything) or with `startTime`; then ' +
      'send back the answer\'s `cursor` until `endOfStream` is true, and later again for what changed since. A record changed ' +
      'several times appears once, in its latest state. Changes younger than one second are left for the next call (a write ' +
      'still committing is never skipped). `limit` (default and maximum 1,000) bounds records and deletions each. A cursor ' +
      'that is not one of ours, or of another resource, is 400 (param cursor). Needs `import_export` and the view permission.',
    permission: 'import_export',
    query: incrementalExportQuery,
    success: { status: 200, data: incrementalExportSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid'],
  },
  importRecords: {
    ...dataops,
    tag: 'Import',
    method: 'POST',
    path: '/teams/{teamId}/import',
    summary: 'Import up to 500 tickets, customers or articles (also from Zendesk, Freshdesk, Intercom, Help Scout)',
    description:
      'Synchronous; answers 201 `import_result` (docs/adr/0037). `records` (1 to 500) are flat objects or wrappers ' +
      '`{data, action, existingId?}` (`action`: `create`, `update`, `skip`). `source` (`helpdesk` default, `zendesk`, ' +
      '`freshdesk`, `intercom`, `helpscout`) says whose export shape the tickets have (field mappings in the ADR). A ticket ' +
      'brings its details, its requester (found by `customer_email`, or created as a customer in the key\'s partition) and its ' +
      'description as the first customer message; replies, private notes and attachments are not migrated; its channel is ' +
      '`import` and the source\'s id is kept as `metadata.externalId`. 400 before anything is written: a record that is not an ' +
      'object, a malformed wrapper, a non-empty history array (`messages`, `_messages`, `comments`, `audits`, ' +
      '`conversations`, `threads`, `_embedded.threads`, `conversation_parts`, `conversation_parts.conversation_parts`, on the ' +
      'record or its `data`), or a truthy `source.body` with an array at `conversation_parts` (even empty); param ' +
      '`records.<i>.<key>`. `customFields` and `metadata` are allowed. Match keys: a ticket\'s `metadata.externalId`, a ' +
      'customer\'s email (case-insensitive), an article\'s title (case-insensitive). `mergeStrategy` for a record that matches: ' +
      '`skip` (default; a warning), `update` (updated through PATCH rules), `fail` (a row error `resource_conflict`). A row ' +
      'that fails (a customer without an email: `parameter_missing`; any field its resource refuses) fails alone, in `errors` ' +
      '`{rowIndex, code, message}`; `warnings` start with `Row N:` (1-based). `success` is false when a row failed. Each ' +
      'record goes through its resource\'s rules and events (`ticket.created` …). Needs `import_export` and `manage_<resource>`.',
    permission: 'import_export',
    body: importBody,
    bodyLimitBytes: IMPORT_BODY_MAX_BYTES,
    success: { status: 201, data: importResultSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'idempotency_key_in_use'],
  },
  listImports: {
    ...dataops,
    tag: 'Import',
    method: 'GET',
    path: '/teams/{teamId}/import',
    summary: 'Import history logs',
    description: 'Newest first; `resource` filters. One entry per import request of the key\'s team and partition. Needs `import_export`.',
    permission: 'import_export',
    query: listImportsQuery,
    success: { status: 200, data: z.array(importLogSchema), shape: 'envelope', pagination: 'meta' },
    errors: ['parameter_invalid'],
  },
});
