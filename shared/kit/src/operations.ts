import type { Express, Request, Response } from 'express';
import type mongoose from 'mongoose';
import { z } from 'zod';
import {
  accessRefusal,
  colonPath,
  paramRefusal,
  type BodyOf,
  type OperationDef,
  type Operations,
  type ParamsOf,
  type QueryOf,
  type ResultOf,
} from '@helpdesk/contracts';
import { ctxOf, type RequestContext } from './context';
import { requestIdOf, sendData } from './envelope';
import { ApiError } from './errors';
import { serviceRequestDuration } from './metrics';
import { runOncePerKey } from './outbox/idempotent-requests';
import type { SecretBox } from './secrets';
import { parseInput, requireObjectBody } from './validate';

/**
 * A service mounts its handlers by operation id: the path, the access rules, and the params, query
 * and body schemas come from the API manifest (shared/contracts), and everything is checked before
 * the handler runs. A handler returns its data (or a page of it); the answer's shape (envelope or
 * bare, where the pagination goes, the status) is the manifest's too.
 */
export interface HandlerInput<O extends OperationDef> {
  /** The verified caller: team, partition, key, permissions, request id. */
  ctx: RequestContext;
  params: ParamsOf<O>;
  query: QueryOf<O>;
  body: BodyOf<O>;
  /** The caller's internal token, to forward when this service must ask another one (internal client). */
  token: string;
  req: Request;
  res: Response;
}

export type Handler<O extends OperationDef> = (input: HandlerInput<O>) => Promise<ResultOf<O>>;

/** One handler per operation of the manifest: leaving one out fails the typecheck. */
export type Handlers<Ops extends Operations> = { [K in keyof Ops]: Handler<Ops[K]> };

/**
 * Typed handlers for some operations of a manifest, written in a resource's `handlers.ts`:
 * `handlersFor(TICKETING)({ listTickets: async ({ ctx, query }) => … })`.
 */
export const handlersFor =
  <Ops extends Operations>(_ops: Ops) =>
  <K extends keyof Ops>(handlers: { [P in K]: Handler<Ops[P]> }): { [P in K]: Handler<Ops[P]> } =>
    handlers;

const NO_QUERY = z.strictObject({});
/** An operation without a body takes none: `{}` is accepted, any field is unknown (400 parameter_invalid). */
const NO_BODY = z.strictObject({});

/** Access (publishable keys, permission), then path params, query, body: the gateway's order, again. */
function checkRequest(op: OperationDef, req: Request, res: Response): { ctx: RequestContext; params: Record<string, string>; query: unknown; body: unknown } {
  const ctx = ctxOf(res);
  const refused = accessRefusal(op, ctx);
  if (refused) throw new ApiError(refused.code, refused.message, refused.param);
  const params: Record<string, string> = {};
  for (const [name, kind] of Object.entries(op.params)) {
    const value = String((req.params as Record<string, string>)[name]);
    const bad = paramRefusal(name, kind, value);
    if (bad) throw new ApiError(bad.code, bad.message, bad.param);
    // The team comes from the token; a URL naming another team is refused, as the gateway does.
    if (kind === 'team' && value.toLowerCase() !== ctx.teamId) throw new ApiError('team_access_denied', 'This API key does not have access to this team.');
    params[name] = value;
  }
  const query = parseInput(op.query ?? NO_QUERY, { ...(req.query as Record<string, unknown>) });
  const body = op.body ? parseInput(op.body, requireObjectBody(req.body)) : undefined;
  if (!op.body && req.body !== undefined) parseInput(NO_BODY, requireObjectBody(req.body));
  return { ctx, params, query, body };
}

/** Writes a handler's result in the operation's documented shape. */
function reply(op: OperationDef, res: Response, result: any): void {
  const { status, shape, pagination } = op.success;
  if (shape === 'bare') res.status(status).json(pagination ? { data: result.data, pagination: result.pagination } : result);
  else if (pagination === 'top') {
    res.status(status).json({ success: true, data: result.data, pagination: result.pagination, meta: { requestId: requestIdOf(res), timestamp: new Date().toISOString() } });
  } else sendData(res, pagination ? result.data : result, { status, pagination: pagination ? result.pagination : undefined });
}

/** Static segments before parameters, so `/webhooks/trigger-test` is matched before `/webhooks/:webhookId`. */
const specificity = (path: string) => path.split('/').map((seg) => (seg.startsWith('{') ? '1' : '0')).join('');

/** Mounts every operation of `ops` on `app` with its handler. */
export function mountOperations<Ops extends Operations>(
  app: Express,
  ops: Ops,
  handlers: Handlers<Ops>,
  opts: {
    /** The service's connection: a write with an Idempotency-Key is recorded with its key there (docs/adr/0062). */
    conn?: mongoose.Connection;
    /** Seals those records (an answer can carry a secret shown once: docs/adr/0067). */
    secrets?: SecretBox;
  } = {},
): void {
  const entries = Object.entries(ops).sort(([, a], [, b]) => specificity(a.path).localeCompare(specificity(b.path)));
  for (const [id, op] of entries) {
    const handler = (handlers as Record<string, Handler<OperationDef>>)[id];
    if (typeof handler !== 'function') throw new Error(`operation ${id} has no handler`);
    const method = op.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete';
    app[method](colonPath(op.path), async (req, res) => {
      // Per-operation latency (helpdesk_service_request_duration_seconds), once answered (errors too:
      // the error handler answers); a stream is open as long as its client stays, so not timed.
      if (!op.stream) {
        const started = process.hrtime.bigint();
        res.once('finish', () => serviceRequestDuration.observe({ service: op.service, operation: id, status: String(res.statusCode) }, Number(process.hrtime.bigint() - started) / 1e9));
      }
      const input = checkRequest(op, req, res);
      const run = () => handler({ ...input, token: res.locals.internalToken as string, req, res } as HandlerInput<OperationDef>);
      const result = opts.conn && !op.stream ? await runOncePerKey(opts.conn, req, id, run, opts.secrets) : await run();
      // A streaming operation's handler has written (and keeps writing) the response itself.
      if (!op.stream) reply(op, res, result);
    });
  }
}
