import { z } from 'zod';
import { queryInt } from './validate';
import type { Pagination } from './envelope';

/** `page` (1-based, default 1) and `pageSize` (default 20, at most 100) as query-schema fields. */
export function paginationFields(defaultPageSize = 20, maxPageSize = 100) {
  return {
    page: queryInt().pipe(z.number().int().min(1).max(1_000_000)).optional().default(1),
    pageSize: queryInt().pipe(z.number().int().min(1).max(maxPageSize)).optional().default(defaultPageSize),
  };
}

export function pageOf(page: number, pageSize: number, total: number): Pagination {
  const totalPages = Math.ceil(total / pageSize);
  return { page, pageSize, total, totalPages, hasMore: page < totalPages };
}

export const skipOf = (page: number, pageSize: number) => (page - 1) * pageSize;
