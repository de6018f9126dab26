import type { Pagination } from '@helpdesk/contracts';

export { paginationFields } from '@helpdesk/contracts';

export function pageOf(page: number, pageSize: number, total: number): Pagination {
  const totalPages = Math.ceil(total / pageSize);
  return { page, pageSize, total, totalPages, hasMore: page < totalPages };
}

export const skipOf = (page: number, pageSize: number) => (page - 1) * pageSize;
