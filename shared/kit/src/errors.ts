import { ERROR_CODES, errorDocUrl, ERROR_DOCS_PATH, type ErrorCode, type ErrorBody } from '@helpdesk/contracts';

/** An error with a documented code: thrown anywhere, turned into the error body by `errorHandler`. */
export class ApiError extends Error {
  readonly status: number;
  readonly type: string;
  constructor(
    readonly code: ErrorCode | string,
    message: string,
    readonly param?: string,
    opts: { status?: number; type?: string; headers?: Record<string, string>; extra?: Record<string, unknown> } = {},
  ) {
    super(message);
    const known = (ERROR_CODES as Record<string, { status: number; type: string }>)[code.toLowerCase()];
    this.status = opts.status ?? known?.status ?? 500;
    this.type = opts.type ?? known?.type ?? 'api_error';
    this.headers = opts.headers;
    this.extra = opts.extra;
  }
  readonly headers?: Record<string, string>;
  readonly extra?: Record<string, unknown>;
}

export const parameterMissing = (param: string, message = `Missing required parameter: ${param}.`) =>
  new ApiError('parameter_missing', message, param);
export const parameterInvalid = (param: string | undefined, message: string) => new ApiError('parameter_invalid', message, param);
export const notFound = (what: string, id?: string) =>
  new ApiError('resource_not_found', id ? `No such ${what}: '${id}'.` : `No such ${what}.`);
/** What a lookup found, or 404 `resource_not_found` naming it (`foundOr404(db.tickets.findOne({_id}).lean(), 'ticket', id)`). */
export async function foundOr404<T>(lookup: PromiseLike<T | null | undefined>, what: string, id?: string): Promise<T> {
  const found = await lookup;
  if (found === null || found === undefined) throw notFound(what, id);
  return found;
}
export const conflict = (message: string, param?: string) => new ApiError('resource_conflict', message, param);
export const forbidden = (code: ErrorCode, message: string) => new ApiError(code, message);

/** The error reference every `doc_url` points into: the platform's own page unless ERROR_DOCS_URL names a public one. */
let errorDocsBase: string = ERROR_DOCS_PATH;
export function useErrorDocsUrl(url: string | undefined): void {
  errorDocsBase = url ?? ERROR_DOCS_PATH;
}

/** The documented error body. 5xx messages never carry internals. */
export function errorBody(err: ApiError, requestId: string): ErrorBody & Record<string, unknown> {
  return {
    success: false,
    error: {
      type: err.type as ErrorBody['error']['type'],
      code: err.code,
      message: err.message,
      ...(err.param !== undefined ? { param: err.param } : {}),
      doc_url: errorDocUrl(err.code, errorDocsBase),
      request_id: requestId,
      ...(err.extra ?? {}),
    },
    meta: { timestamp: new Date().toISOString(), requestId },
  };
}
