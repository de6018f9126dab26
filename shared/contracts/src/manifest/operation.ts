import { z } from 'zod';
import type { ErrorCode } from '../errors';
import type { IdKind } from '../ids';
import type { Permission } from '../permissions';

/**
 * One operation of the API manifest: everything the gateway, the owning service, the OpenAPI
 * document and the typed client need to know about it, written once. Pure data and zod schemas.
 */
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * What a path parameter holds: `team` (the key's team UUID), a prefixed id of a kind (`tkt_…`),
 * `uuid`, or `slug` (a key the team chose, such as a customer status key).
 */
export type ParamKind = 'team' | 'uuid' | 'slug' | IdKind;

/**
 * What publishable keys may do here (ADR 0001 and 0003):
 * - `staff`: a staff resource; a publishable key may neither read (`publishable_key_forbidden`) nor write it;
 * - `public`: publishable keys may read it (GET) when they carry the permission;
 * - `secret`: no staff data, but a secret key is required (`insufficient_permissions`);
 * - `none`: no key at all (the OpenAPI document);
 * - `visitor`: the chat widget's public endpoints (docs/adr/0040): publishable keys only, reads and
 *   writes; a secret key is refused (`secret_key_forbidden`), since it must never be in a page.
 * - `session`: the console's own session (docs/adr/0068): only the session cookie, never a key.
 *
 * Every rule but `none` and `visitor` also takes the console's session cookie, as a secret key of the
 * session's member (docs/adr/0068).
 */
export type KeyRule = 'staff' | 'public' | 'secret' | 'none' | 'visitor' | 'session';

/**
 * The spec's two response shapes: `envelope` = `{success, data, meta}`; `bare` = the object itself
 * (customer groups). Lists carry their pagination in `meta.pagination` (`meta`) or beside `data`
 * (`top`; with `bare` that is `{data, pagination}`).
 */
export interface SuccessDef {
  status: 200 | 201 | 202;
  data: z.ZodType;
  shape: 'envelope' | 'bare';
  pagination?: 'meta' | 'top';
}

export interface OperationDef {
  /** The service that answers it (`gateway` for the gateway's own). */
  service: string;
  method: HttpMethod;
  /** Relative to `/api/v1` (public) or to the service root (internal); `{name}` marks a parameter. */
  path: string;
  /** OpenAPI tag: the resource. */
  tag: string;
  summary: string;
  /** Rules, and every choice where the spec says "not shown" (shown in the OpenAPI document). */
  description?: string;
  /** The permission the key must carry (null: authentication only). */
  permission: Permission | null;
  keys: KeyRule;
  params: Record<string, ParamKind>;
  query?: z.ZodObject;
  body?: z.ZodType;
  success: SuccessDef;
  /** Codes this operation can answer besides those every operation can (401, 403, 429, 5xx …). */
  errors: readonly ErrorCode[];
  /** Service-to-service only: never routed by the gateway, never in the public document. */
  internal?: boolean;
  /** A larger request body than the gateway's default (1 MB) for this operation (an upload). */
  bodyLimitBytes?: number;
  /**
   * A `text/event-stream` answer (docs/adr/0021): the handler writes the response itself, the gateway
   * pipes it unbuffered, and `success.data` is the schema of one frame's `data:` (for the document).
   * `download` (docs/adr/0036): a large answer written as it is produced (JSON in the envelope, or
   * CSV), piped unbuffered the same way; `success.data` is the JSON answer's `data`.
   */
  stream?: true | 'download';
}

export type Operations = Record<string, OperationDef>;

/** Declares a service's operations keeping their literal types (ids, schemas) for handlers and clients. */
export const defineOperations = <const O extends Operations>(ops: O): O => ops;

/** A page of a list: what a paginated operation's handler returns. */
export interface Page<T> {
  data: T[];
  pagination: { page: number; pageSize: number; total: number; totalPages: number; hasMore: boolean };
}

/** What deleting a record answers: `{id, deleted: true}` (the spec's `{deleted: true}`; `id` is additive). */
export const deletedSchema = z.object({ id: z.string(), deleted: z.literal(true) }).meta({ id: 'Deleted' });

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/** The validated path parameters, query and body of an operation, as its handler receives them. */
export type ParamsOf<O extends OperationDef> = { [K in keyof O['params']]: string };
export type QueryOf<O extends OperationDef> = O['query'] extends z.ZodType ? z.output<O['query']> : Record<string, never>;
export type BodyOf<O extends OperationDef> = Out<O['body']>;

/** What an operation's handler returns: its data, or a page of it. */
export type ResultOf<O extends OperationDef> = O['stream'] extends true | 'download'
  ? void
  : O['success']['pagination'] extends 'meta' | 'top'
  ? Page<z.output<O['success']['data']> extends (infer T)[] ? T : never>
  : z.output<O['success']['data']>;

/** `/teams/{teamId}/tickets` → `/teams/:teamId/tickets` (express and the gateway's trie). */
export const colonPath = (path: string) => path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');

/** Every `{name}` of a path, in order. */
export const pathParamNames = (path: string) => [...path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]);
