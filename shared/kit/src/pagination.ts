import type mongoose from 'mongoose';
import type { Pagination } from '@helpdesk/contracts';
import type { AnyScopedModel, LeanFilter, ScopedFilter, Stored } from './scoped';

export function pageOf(page: number, pageSize: number, total: number): Pagination {
  const totalPages = Math.ceil(total / pageSize);
  return { page, pageSize, total, totalPages, hasMore: page < totalPages };
}

export const skipOf = (page: number, pageSize: number) => (page - 1) * pageSize;

/** Newest first, the order of every list unless a resource says otherwise. */
export const NEWEST_FIRST = { createdAt: -1, _id: -1 } as const;

/**
 * One page of a list: the matching count and the page's rows (lean) in `sort` order, read at once.
 * `model` is a scoped handle (kit's `scoped`), so the filter needs no scope.
 */
export async function findPage<T>(
  model: AnyScopedModel & Stored<T>,
  filter: LeanFilter | ScopedFilter<T>,
  q: { page: number; pageSize: number },
  opts: { sort?: Record<string, 1 | -1>; projection?: mongoose.ProjectionType<any> } = {},
): Promise<{ rows: T[]; pagination: Pagination }> {
  const [total, rows] = await Promise.all([
    model.countDocuments(filter),
    model
      .find(filter, opts.projection)
      .sort(opts.sort ?? NEWEST_FIRST)
      .skip(skipOf(q.page, q.pageSize))
      .limit(q.pageSize)
      .lean<T[]>(),
  ]);
  return { rows, pagination: pageOf(q.page, q.pageSize, total) };
}
