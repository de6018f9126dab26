import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@helpdesk/kit';

/**
 * The gateway's access log (issue 30 item 4): one structured line per request, written when the answer
 * is done (or the client left), at `info`; a 5xx at `warn`, with its `cause`. A line holds only
 * what identifies the request, never a secret: no URL (a billing portal link and a stream token
 * travel in it), no header, no body, and of the key only its id and its listing prefix (`sk_test_AbCd`).
 *
 * Fields: `requestId`, `method`, `operation` (the manifest's operation id; null outside it), `root`
 * (the public root or health path of a request outside `/api/v1`), `teamId`, `keyId`, `keyPrefix`,
 * `status`, `durationMs`, `bytes` (response body bytes sent), `code` (an error answer's code, when the
 * gateway made it), `aborted` (the client left before the end), and for a 5xx `cause`
 * (`{ upstream?, what, error? }`: which service, what failed).
 */
export interface Failure {
  /** The service that failed, when one did (`ticketing`, …). */
  upstream?: string;
  /** What failed, in words (`unreachable`, `answered 503 service_unavailable`, …). */
  what: string;
  /** The underlying error's code and message, when there is one. */
  error?: string;
}

/** What the request's handlers learn for its access line (filled while it runs, read when it closes). */
export interface AccessNote {
  operation?: string | null;
  teamId?: string | null;
  keyId?: string | null;
  keyPrefix?: string | null;
  /** The error code of an error answer the gateway made. */
  code?: string | null;
  failure?: Failure;
  /** Read when the line is written (what the pipeline found by then), under the fields above. */
  late?: () => AccessNote;
}

const NOTES = new WeakMap<ServerResponse, AccessNote>();
const FAILURES = new WeakMap<object, Failure>();

/** Adds to the request's access line (a no-op outside `accessLogged`, e.g. a listener under test alone). */
export function noteAccess(res: ServerResponse, fields: AccessNote): void {
  const note = NOTES.get(res);
  if (note) Object.assign(note, fields);
}

/** Marks an error with what caused it, for the access line of the request it fails. */
export function withFailure<E extends object>(err: E, failure: Failure): E {
  FAILURES.set(err, failure);
  return err;
}

/** The cause an error was marked with, if any. */
export function failureOf(err: unknown): Failure | undefined {
  return typeof err === 'object' && err !== null ? FAILURES.get(err) : undefined;
}

/** An error as `code: message` (its stack and properties stay out of the line). */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err).slice(0, 300);
  const code = (err as { code?: unknown }).code;
  return `${typeof code === 'string' ? `${code}: ` : ''}${err.message}`.slice(0, 300);
}

/** A service's own 5xx answer as a cause: the service, its status and error code (from its error body). */
export function answeredFailure(upstream: string, status: number, body?: Buffer): Failure {
  let code = '';
  try {
    const parsed = body && body.length < 64 * 1024 ? (JSON.parse(body.toString('utf8')) as { error?: { code?: unknown } }) : null;
    if (typeof parsed?.error?.code === 'string') code = ` ${parsed.error.code}`;
  } catch {
    // not JSON: the status says enough
  }
  return { upstream, what: `answered ${status}${code}` };
}

/** The paths outside `/api/v1` a line names instead of an operation (never the rest of the path). */
const ROOTS = ['/docs', '/help', '/billing', '/widget', '/healthz', '/readyz'];

function rootOf(url: string): string | null {
  if (url.startsWith('/api/')) return null;
  for (const root of ROOTS) {
    if (url.startsWith(root)) {
      const next = url.charCodeAt(root.length);
      if (Number.isNaN(next) || next === 47 || next === 63) return root;
    }
  }
  return 'other';
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** `listener` with an access line per request. */
export function accessLogged(logger: Logger, listener: Listener): Listener {
  return (req, res) => {
    const started = process.hrtime.bigint();
    const note: AccessNote = {};
    NOTES.set(res, note);
    let bytes = 0;
    const write = res.write;
    const end = res.end;
    const count = (chunk: unknown, encoding: unknown) => {
      if (typeof chunk === 'string') bytes += Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
      else if (chunk instanceof Uint8Array) bytes += chunk.byteLength;
    };
    res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      count(chunk, rest[0]);
      return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
    } as ServerResponse['write'];
    res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      if (typeof chunk !== 'function') count(chunk, rest[0]);
      return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    } as ServerResponse['end'];
    res.once('close', () => {
      if (note.late) Object.assign(note, { ...note.late(), ...note, late: undefined });
      const status = res.statusCode;
      const line = {
        requestId: (res.getHeader('x-svc-request-id') as string | undefined) ?? null,
        method: req.method ?? null,
        operation: note.operation ?? null,
        root: note.operation ? null : rootOf(req.url ?? '/'),
        teamId: note.teamId ?? null,
        keyId: note.keyId ?? null,
        keyPrefix: note.keyPrefix ?? null,
        status,
        durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
        bytes,
        code: note.code ?? null,
        ...(res.writableFinished ? {} : { aborted: true }),
      };
      if (status >= 500) {
        logger.warn({ ...line, cause: note.failure ?? { what: 'unknown' } }, 'request');
      } else {
        logger.info(line, 'request');
      }
    });
    listener(req, res);
  };
}
