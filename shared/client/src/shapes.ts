import { isObject } from './errors';

/**
 * The spec's two success shapes, read alike: the envelope `{success: true, data, meta: {requestId,
 * timestamp[, pagination]}}` (pagination in `meta` or beside `data`), and the bare answers of
 * customer groups (the object itself, or `{data, pagination}` for lists).
 */

export interface Pagination {
  page: number;
  pageSize: number;
  total: number;
  totalPages: number;
  hasMore?: boolean;
}

/** The `data` of a success body type, whatever its shape. */
export type DataOf<B> = B extends { success: true; data: infer D }
  ? D
  : B extends { data: infer D; pagination: unknown }
    ? D
    : B;

/** The item type of a list body. */
export type ItemOf<B> = DataOf<B> extends readonly (infer T)[] ? T : never;

/** A page of a list: its items and its pagination. */
export interface Page<T> {
  data: T[];
  pagination: Pagination | undefined;
}

/** The `data` of a success body: `body.data` for the envelope and for bare `{data, pagination}`, else the body itself. */
export function dataOf<B>(body: B): DataOf<B> {
  if (isObject(body)) {
    if (body.success === true && 'data' in body) return body.data;
    if ('data' in body && 'pagination' in body && !('success' in body)) return body.data;
  }
  return body as DataOf<B>;
}

/** The pagination of a list body, wherever it sits (`meta.pagination` or top-level `pagination`). */
export function paginationOf(body: unknown): Pagination | undefined {
  if (!isObject(body)) return undefined;
  if (isObject(body.meta) && isObject(body.meta.pagination)) return body.meta.pagination as Pagination;
  if (isObject(body.pagination)) return body.pagination as Pagination;
  return undefined;
}

/** Whether a page is followed by another: `hasMore` when the list gives it, else page < totalPages. */
export function hasNextPage(p: Pagination | undefined, itemsOnPage: number): boolean {
  if (!p || itemsOnPage === 0) return false;
  if (typeof p.hasMore === 'boolean') return p.hasMore;
  return p.page < p.totalPages;
}
