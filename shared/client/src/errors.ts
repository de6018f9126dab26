/**
 * The one error class of the client: every refusal the API answers (any non-2xx), with the error
 * body's fields. Codes are kept exactly as sent: the API answers lowercase codes, and the spec shows
 * some in uppercase (`PARAMETER_INVALID`, `RESOURCE_MISSING`); compare with `code.toLowerCase()` to
 * accept both.
 */
export class HelpdeskError extends Error {
  override readonly name = 'HelpdeskError';
  /** The HTTP status. */
  readonly status: number;
  /** `error.type` (`invalid_request_error`, `rate_limit_error`, …); `api_error` when the body has none. */
  readonly type: string;
  /** `error.code` as sent; `http_<status>` when the body has no error code (not JSON, empty). */
  readonly code: string;
  /** `error.param`: the offending field, when there is one. */
  readonly param: string | undefined;
  /** `error.request_id`, else the `x-svc-request-id` header. */
  readonly requestId: string | undefined;
  /** Seconds to wait: `error.retryAfter`, else the `Retry-After` header (429). */
  readonly retryAfter: number | undefined;
  /** `error.doc_url`. */
  readonly docUrl: string | undefined;
  /** The parsed body (the raw text when it is not JSON). */
  readonly body: unknown;

  constructor(init: {
    status: number;
    type?: string;
    code?: string;
    message?: string;
    param?: string;
    requestId?: string;
    retryAfter?: number;
    docUrl?: string;
    body?: unknown;
  }) {
    const code = init.code ?? `http_${init.status}`;
    const text = init.message ?? `HTTP ${init.status}`;
    super(`${init.status} ${code}: ${text}${init.param ? ` (param: ${init.param})` : ''}`);
    this.status = init.status;
    this.type = init.type ?? 'api_error';
    this.code = code;
    this.param = init.param;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.docUrl = init.docUrl;
    this.body = init.body;
  }

  /** From an answer's status, headers and parsed body (or text). */
  static from(status: number, headers: Headers, body: unknown): HelpdeskError {
    const err = isObject(body) && isObject(body.error) ? body.error : {};
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    const retryAfter =
      typeof err.retryAfter === 'number' ? err.retryAfter : retryAfterSeconds(headers.get('retry-after'));
    return new HelpdeskError({
      status,
      type: str(err.type),
      code: str(err.code),
      message: str(err.message),
      param: str(err.param),
      requestId: str(err.request_id) ?? headers.get('x-svc-request-id') ?? undefined,
      retryAfter,
      docUrl: str(err.doc_url),
      body,
    });
  }
}

export const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `Retry-After` in seconds (delta-seconds or an HTTP date); undefined when absent or unreadable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
