import { z } from 'zod';
import { ERROR_CODES, ERROR_TYPES, type ErrorCode } from './errors';
import { paginationSchema } from './fields';
import { ID_PREFIX } from './ids';
import { PUBLIC_OPERATIONS } from './manifest';
import { eventPermission, eventReadOperation } from './event-access';
import { EVENT_TYPES } from './events';
import { SLUG_RE, takesSessionCookie } from './manifest/access';
import type { OperationDef, ParamKind } from './manifest/operation';
import { CSRF_HEADER, SESSION_COOKIE } from './manifest/workspace/sessions';

/**
 * The OpenAPI 3.1 document, derived from the API manifest with zod 4's own JSON Schema output (no
 * hand-written schema). `npm run openapi` writes it to docs/openapi.json; the gateway serves it at
 * `/api/v1/openapi.json`; the platform suites check every response against it.
 */

type Json = Record<string, any>;

export const API_VERSION = '2.0.0';

const SAFE_INT = 9007199254740991;

/** Who may call: no credential, the session cookie only, a key only (the widget's), or a key or the session cookie. */
function securityOf(op: OperationDef): Json {
  if (op.keys === 'none') return { security: [] };
  if (op.keys === 'session') return { security: [{ sessionCookie: [] }] };
  if (op.keys === 'visitor') return { security: [{ apiKey: [] }] };
  return {};
}

/** What every operation behind a key can answer, besides its own errors. */
function commonErrors(op: OperationDef): ErrorCode[] {
  if (op.keys === 'none') return ['internal_error']; // served before any key or rate limit
  const codes: ErrorCode[] = ['authentication_required', 'invalid_api_key', 'invalid_key_format', 'key_expired', 'insufficient_permissions'];
  if (op.keys === 'staff') codes.push(op.method === 'GET' ? 'publishable_key_forbidden' : 'publishable_key_write');
  else if (op.keys === 'visitor') codes.push('secret_key_forbidden', 'origin_not_allowed');
  else if (op.method !== 'GET' && op.keys !== 'session') codes.push('publishable_key_write');
  if (takesSessionCookie(op)) {
    // The console's session cookie (docs/adr/0068): ended, another origin, a write without its CSRF token.
    codes.push('session_invalid', 'origin_not_allowed');
    if (op.method !== 'GET') codes.push('csrf_token_invalid');
  }
  if ('teamId' in op.params) codes.push('team_access_denied');
  if (Object.keys(op.params).length) codes.push('invalid_id_format');
  codes.push('parameter_invalid'); // an unknown query parameter (any operation); Idempotency-Key; a body too large (413)
  codes.push('rate_limit_exceeded', 'internal_error', 'database_error', 'service_unavailable');
  return codes;
}

/** Every error code an operation can answer, grouped by HTTP status. */
export function errorStatusesOf(op: OperationDef): Map<number, ErrorCode[]> {
  const byStatus = new Map<number, ErrorCode[]>();
  const add = (status: number, code: ErrorCode) => {
    const list = byStatus.get(status) ?? [];
    if (!list.includes(code)) list.push(code);
    byStatus.set(status, list);
  };
  for (const code of [...commonErrors(op), ...op.errors]) add(ERROR_CODES[code].status, code);
  if (op.body || op.method === 'POST' || op.method === 'PATCH') add(413, 'parameter_invalid');
  return new Map([...byStatus.entries()].sort(([a], [b]) => a - b));
}

/** A JSON Schema for a path parameter of this kind. */
function paramSchema(kind: ParamKind): Json {
  if (kind === 'team' || kind === 'uuid') return { type: 'string', format: 'uuid' };
  if (kind === 'slug') return { type: 'string', pattern: SLUG_RE.source };
  return { type: 'string', pattern: `^${ID_PREFIX[kind]}_[A-Za-z0-9]{8,64}$` };
}

/** zod → JSON Schema, with the noise zod adds where a JSON number or date needs no more. */
function tidy(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(tidy);
  if (!node || typeof node !== 'object') return;
  const o = node as Json;
  delete o.$schema;
  if (o.format === 'date-time' && o.pattern) delete o.pattern;
  if (o.minimum === -SAFE_INT) delete o.minimum;
  if (o.maximum === SAFE_INT) delete o.maximum;
  if (typeof o.$ref === 'string') o.$ref = o.$ref.replace('#/$defs/', '#/components/schemas/');
  for (const v of Object.values(o)) tidy(v);
}

class SchemaSet {
  readonly components: Record<string, Json> = {};

  /** The JSON Schema of `schema` (read as input or as output); named parts go to components. */
  of(schema: z.ZodType, io: 'input' | 'output'): Json {
    const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
    const defs = (out.$defs ?? {}) as Record<string, Json>;
    delete out.$defs;
    tidy(out);
    for (const [name, def] of Object.entries(defs)) {
      tidy(def);
      const seen = this.components[name];
      if (seen && JSON.stringify(seen) !== JSON.stringify(def)) throw new Error(`OpenAPI: two different schemas are both named ${name}`);
      this.components[name] = def;
    }
    return out;
  }
}

const ERROR_SCHEMA: Json = {
  type: 'object',
  description: 'Every error answers this body.',
  properties: {
    success: { const: false },
    error: {
      type: 'object',
      properties: {
        type: { type: 'string', enum: [...ERROR_TYPES] },
        code: { type: 'string', description: 'A documented code; lowercase, except where the spec shows uppercase (clients accept both).' },
        message: { type: 'string' },
        param: { type: 'string', description: 'The offending field, when there is one.' },
        doc_url: { type: 'string' },
        request_id: { type: 'string' },
        retryAfter: { type: 'integer', description: 'Seconds to wait (429 only).' },
      },
      required: ['type', 'code', 'message', 'request_id'],
      additionalProperties: false,
    },
    meta: {
      type: 'object',
      properties: { timestamp: { type: 'string', format: 'date-time' }, requestId: { type: 'string' } },
      required: ['timestamp', 'requestId'],
      additionalProperties: false,
    },
  },
  required: ['success', 'error', 'meta'],
  additionalProperties: false,
};

const META = (paginated: boolean): Json => ({
  type: 'object',
  properties: {
    requestId: { type: 'string' },
    timestamp: { type: 'string', format: 'date-time' },
    ...(paginated ? { pagination: { $ref: '#/components/schemas/Pagination' } } : {}),
  },
  required: ['requestId', 'timestamp', ...(paginated ? ['pagination'] : [])],
  additionalProperties: false,
});

/** The success body of an operation: the envelope or the bare shape, with its pagination. */
function successBody(op: OperationDef, data: Json): Json {
  const { shape, pagination } = op.success;
  const page = { $ref: '#/components/schemas/Pagination' };
  if (shape === 'bare') {
    if (!pagination) return data;
    return { type: 'object', properties: { data, pagination: page }, required: ['data', 'pagination'], additionalProperties: false };
  }
  const props: Json = { success: { const: true }, data, meta: META(pagination === 'meta') };
  if (pagination === 'top') props.pagination = page;
  return { type: 'object', properties: props, required: Object.keys(props), additionalProperties: false };
}

const RATE_HEADERS = ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-RateLimit-Window'];

/** Headers of a success answer (every answer carries them; errors document only Retry-After, to keep the document small). */
function responseHeaders(op: OperationDef): Json {
  const h: Json = { 'x-svc-request-id': { $ref: '#/components/headers/RequestId' } };
  if (op.keys !== 'none') for (const name of RATE_HEADERS) h[name] = { $ref: `#/components/headers/${name}` };
  return h;
}

const INFO_DESCRIPTION = [
  'A multi-tenant helpdesk REST API. Every team-scoped path starts with `/teams/{teamId}`; the data partition (`test` or `live`) is',
  'chosen by the key. Send `Authorization: Bearer <API_KEY>`.',
  '',
  'Responses use the success envelope `{success: true, data, meta: {requestId, timestamp}}`; customer-group responses are bare, as',
  'the spec shows. Errors always use the error body. `POST` and `PATCH` accept `Idempotency-Key` (1 to 255 characters; the same',
  'request within 24 hours replays the first answer with `Idempotent-Replayed: true`; another request with the key is 409).',
  'Rate limits: 120 requests a minute per secret key, 60 per publishable key (fixed 60-second window), with the `X-RateLimit-*`',
  'headers on every answer and `Retry-After` on 429. Browsers may call the API with a publishable key (CORS); never with a secret key.',
  'People sign in to the console (`/app`) with a mailed one-time link (`POST /auth/sign-in-links`, then `POST /auth/sessions`): its',
  'HttpOnly session cookie works like a secret key of the member on the same origin, with `X-CSRF-Token` on writes.',
  '',
  'Every free-form object (`metadata`, `customFields`) is bounded: see the schema descriptions. The design decisions where the spec',
  'says "not shown" are in each operation\'s description and in the repository\'s docs/adr.',
].join('\n');

/**
 * The Events tag: which permission each event type needs to reach a key (the stream, a stream token,
 * a webhook's key; docs/adr/0066), from the event catalog and, where it names one, the GET operation.
 */
const EVENTS_TAG_DESCRIPTION = () =>
  [
    'Events operations. Every channel out of the platform hands an event only to a key that may read its resource through the API ' +
      '(docs/adr/0066): the event stream and its stream tokens (the key\'s permissions), and webhooks (the permissions of the key that ' +
      'set up their url and events). An API key\'s events also reach its own member; a private saved view\'s only its creator.',
    '',
    '| event type | permission | from |',
    '|---|---|---|',
    ...EVENT_TYPES.map((type) => {
      const op = eventReadOperation(type);
      return `| \`${type}\` | ${eventPermission(type) ? `\`${eventPermission(type)}\`` : 'any secret key'} | ${op ? `\`${op.method} ${op.path}\`` : 'the event catalog'} |`;
    }),
  ].join('\n');

/** An operation's parameters: its path parameters, its query's, and the headers it takes. */
function parametersOf(op: OperationDef, schemas: SchemaSet): Json[] {
  const parameters: Json[] = Object.entries(op.params).map(([name, kind]) => ({
    name,
    in: 'path',
    required: true,
    description: kind === 'team' ? "The team's UUID (the key's team)." : kind === 'slug' ? 'A key the team chose.' : `A ${kind === 'uuid' ? 'UUID' : `${ID_PREFIX[kind]}_ id`}.`,
    schema: paramSchema(kind),
  }));
  if (op.query) {
    const input = schemas.of(op.query, 'input');
    const output = schemas.of(op.query, 'output');
    const required = new Set<string>(input.required ?? []);
    for (const [name, schema] of Object.entries((output.properties ?? {}) as Record<string, Json>)) {
      const p: Json = { name, in: 'query', required: required.has(name), schema };
      if (schema.type === 'array') Object.assign(p, { style: 'form', explode: true });
      parameters.push(p);
    }
  }
  if (op.method === 'POST' || op.method === 'PATCH') parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
  if (op.method !== 'GET' && takesSessionCookie(op)) parameters.push({ $ref: '#/components/parameters/CsrfToken' });
  return parameters;
}

/** An operation's answers: its success (JSON, a download or an event stream) and its errors by status. */
function responsesOf(op: OperationDef, schemas: SchemaSet): Json {
  const responses: Json = {
    [String(op.success.status)]: {
      description: op.success.status === 201 ? 'Created' : op.success.status === 202 ? 'Accepted' : 'OK',
      headers: responseHeaders(op),
      content: op.stream === 'download'
        ? // A download (docs/adr/0036): JSON in the envelope, or CSV text.
          { 'application/json': { schema: successBody(op, schemas.of(op.success.data, 'output')) }, 'text/csv': { schema: { type: 'string' } } }
        : op.stream
        ? // An event stream: the frame format is in the description; `x-frame-data` is the schema of each frame's `data:` line.
          { 'text/event-stream': { schema: { type: 'string', 'x-frame-data': schemas.of(op.success.data, 'output') } } }
        : { 'application/json': { schema: successBody(op, schemas.of(op.success.data, 'output')) } },
    },
  };
  for (const [status, codes] of errorStatusesOf(op)) {
    responses[String(status)] = {
      description: `Error: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
      ...(status === 429 ? { headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } } : {}),
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return responses;
}

/** One operation of the document's paths. */
function operationObject(operationId: string, op: OperationDef, schemas: SchemaSet): Json {
  const parameters = parametersOf(op, schemas);
  const responses = responsesOf(op, schemas);
  return {
    operationId,
    tags: [op.tag],
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    'x-service': op.service,
    'x-permission': op.permission,
    'x-keys': op.keys,
    ...securityOf(op),
    parameters,
    ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemas.of(op.body, 'input') } } } } : {}),
    responses,
  };
}

const HEADERS: Json = {
  RequestId: { description: 'The request id (also `meta.requestId` / `error.request_id`).', schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: "Requests a minute for this key.", schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left in this window.', schema: { type: 'integer' } },
  'X-RateLimit-Reset': { description: 'When the window ends (Unix seconds).', schema: { type: 'integer' } },
  'X-RateLimit-Window': { description: 'The window, in seconds (60).', schema: { type: 'integer' } },
  'Retry-After': { description: 'Seconds until a retry can succeed.', schema: { type: 'integer' } },
};

const SECURITY_SCHEMES: Json = {
  apiKey: { type: 'http', scheme: 'bearer', description: '`sk_test_…`, `sk_live_…`, `pk_test_…` or `pk_live_…`.' },
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description:
      'The console\'s session (`POST /auth/sessions` sets it): a secret key of the signed-in member, in the session\'s partition. ' +
      'Writes also need `X-CSRF-Token` and a same-origin `Origin`; a request with `Authorization` ignores the cookie (docs/adr/0068).',
  },
};

const HEADER_PARAMETERS: Json = {
  CsrfToken: {
    name: CSRF_HEADER,
    in: 'header',
    required: false,
    description: 'Required with the session cookie (not with a key): the session\'s `csrfToken` (`GET /auth/session`).',
    schema: { type: 'string', maxLength: 200 },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description: 'Replays the first answer for the same request within 24 hours.',
    schema: { type: 'string', minLength: 1, maxLength: 255 },
  },
};

/** Builds the OpenAPI 3.1 document of the given operations (default: every public one). */
export function buildOpenApiDocument(ops: Record<string, OperationDef> = PUBLIC_OPERATIONS): Json {
  const schemas = new SchemaSet();
  schemas.of(paginationSchema, 'output');
  const paths: Record<string, Json> = {};
  const tags = new Set<string>();
  for (const [operationId, op] of Object.entries(ops)) {
    if (op.internal) continue;
    tags.add(op.tag);
    (paths[op.path] ??= {})[op.method.toLowerCase()] = operationObject(operationId, op, schemas);
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Helpdesk API',
      version: API_VERSION,
      description: INFO_DESCRIPTION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    // Relative: resolved against wherever the document was fetched from (`/docs` on localhost, 127.0.0.1 or behind an
    // Ingress), so "Try it out" calls the same origin; a client that reads the file itself adds its own host.
    servers: [{ url: '/api/v1', description: 'This platform (relative to the host serving the document; `npm start`: http://127.0.0.1:8080/api/v1)' }],
    security: [{ apiKey: [] }, { sessionCookie: [] }],
    tags: [...tags].map((name) => ({ name, description: name === 'Events' ? EVENTS_TAG_DESCRIPTION() : `${name} operations.` })),
    paths,
    components: {
      // Copies: a caller may change its document without changing the next one.
      securitySchemes: structuredClone(SECURITY_SCHEMES),
      parameters: structuredClone(HEADER_PARAMETERS),
      headers: structuredClone(HEADERS),
      schemas: { ...Object.fromEntries(Object.entries(schemas.components).sort(([a], [b]) => a.localeCompare(b))), Error: ERROR_SCHEMA },
    },
  };
}
