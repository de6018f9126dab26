import type { Response } from 'express';
import type { Pagination } from '@helpdesk/contracts';

export type { Pagination };

export function requestIdOf(res: Response): string {
  return (res.locals.requestId as string | undefined) ?? 'req_unknown';
}

/** The success envelope `{success, data, meta: {requestId, timestamp[, pagination]}}`. */
export function sendData(res: Response, data: unknown, opts: { status?: number; pagination?: Pagination } = {}): void {
  res.status(opts.status ?? 200).json({
    success: true,
    data,
    meta: {
      requestId: requestIdOf(res),
      timestamp: new Date().toISOString(),
      ...(opts.pagination ? { pagination: opts.pagination } : {}),
    },
  });
}
