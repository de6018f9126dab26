import type { ListImportsQuery } from '@helpdesk/contracts';
import { scoped, type RequestContext } from '@helpdesk/kit';
import type { DataopsModels } from '../collections';
import { importLogView, type ImportLogDoc } from './model';

/** `GET /import`: the import log, newest first. */
export async function listImports({ models }: { models: Pick<DataopsModels, 'importLogs'> }, ctx: RequestContext, query: ListImportsQuery) {
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
}
