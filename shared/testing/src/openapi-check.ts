import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument, PUBLIC_OPERATIONS, RouteTable, type OperationDef } from '@helpdesk/contracts';

/**
 * Checks an answer of the API against the OpenAPI document (`buildOpenApiDocument()`, the same one
 * the gateway serves and docs/openapi.json holds): the operation is found by method and path under
 * `/api/v1` with the gateway's own route table (contracts' RouteTable), its
 * status must be documented for that operation, and its JSON body must match that status's schema
 * (ajv, JSON Schema 2020-12, every error). An unknown path must answer 404, a known path with another
 * method 405, both with the Error body (or an error that comes before routing: 401, 429, 5xx).
 * Answers outside `/api/v1`, and answers that are not JSON (the `/docs` HTML, an empty 204), are not
 * checked.
 */

export const API_BASE_PATH = '/api/v1';

/** Refusals the gateway answers before it looks the path up (authentication, rate limit, faults). */
export const BEFORE_ROUTING_STATUSES: readonly number[] = [401, 429, 500, 503];

export interface CheckedAnswer {
  method: string;
  /** The full URL, or a path (`/api/v1/…`). */
  url: string;
  status: number;
  /** The parsed JSON body (as `ApiClient` gives it: the text when it is not JSON, undefined when empty). */
  body: unknown;
  /** The answer's `content-type`: anything but JSON is not checked. */
  contentType?: string | null;
}

export interface CheckOutcome {
  /** Whether the answer was checked at all (false outside /api/v1 or for a non-JSON answer). */
  checked: boolean;
  /** `createTicket`, or `(unknown path)` / `(method not allowed)`. */
  operation: string;
  /** The matched path template (`/teams/{teamId}/tickets`), when there is one. */
  template: string | null;
  /** What is wrong; empty when the answer is as documented. */
  problems: string[];
}

type Json = Record<string, any>;

const DOC_ID = 'https://helpdesk.local/openapi.json';
const ERROR_REF = `${DOC_ID}#/components/schemas/Error`;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** A JSON pointer segment, as a URI fragment needs it. */
const pointerSegment = (s: string) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'));

export class OpenApiChecker {
  private readonly ajv: Ajv2020;
  private readonly routes: RouteTable;
  private readonly validators = new Map<string, ValidateFunction>();
  readonly document: Json;

  constructor(operations: Record<string, OperationDef> = PUBLIC_OPERATIONS) {
    this.document = buildOpenApiDocument(operations);
    this.routes = new RouteTable(operations);
    this.ajv = new Ajv2020({ allErrors: true, strict: false, validateSchema: false, logger: false });
    addFormats(this.ajv);
    // The whole document is one schema resource: `#/components/...` refs resolve inside it.
    this.ajv.addSchema({ ...this.document, $id: DOC_ID }, undefined, undefined, false);
  }

  /** The path template of a path relative to /api/v1, as the gateway matches it; null when none. */
  matchTemplate(subPath: string): string | null {
    return this.routes.match('GET', subPath)?.path ?? null;
  }

  private validator(ref: string): ValidateFunction {
    let v = this.validators.get(ref);
    if (!v) this.validators.set(ref, (v = this.ajv.compile({ $ref: ref })));
    return v;
  }

  /** Every response schema of the document, compiled (a schema ajv cannot compile throws here). */
  compileAll(): number {
    let n = 0;
    for (const [template, item] of Object.entries(this.document.paths ?? {}) as [string, Json][]) {
      for (const method of METHODS) {
        for (const status of Object.keys(item[method]?.responses ?? {})) {
          const ref = this.responseSchemaRef(template, method, status);
          if (ref) {
            this.validator(ref);
            n++;
          }
        }
      }
    }
    return n;
  }

  private responseSchemaRef(template: string, method: string, status: string): string | null {
    const response = this.document.paths[template][method].responses[status];
    const schema = response?.content?.['application/json']?.schema;
    if (!schema) return null;
    return `${DOC_ID}#/${['paths', template, method, 'responses', status, 'content', 'application/json', 'schema'].map(pointerSegment).join('/')}`;
  }

  /** Checks one answer; see the file's comment for the rules. */
  check(answer: CheckedAnswer): CheckOutcome {
    const method = answer.method.toUpperCase();
    const skipped = (operation: string): CheckOutcome => ({ checked: false, operation, template: null, problems: [] });
    const pathname = new URL(answer.url, 'http://localhost').pathname;
    if (pathname !== API_BASE_PATH && !pathname.startsWith(`${API_BASE_PATH}/`)) return skipped('(outside the API)');
    if (answer.contentType != null && !/[/+]json\b/i.test(answer.contentType)) return skipped('(not JSON)');
    if (answer.body === undefined && (answer.status === 204 || answer.status === 304 || method === 'HEAD' || method === 'OPTIONS')) {
      return skipped('(no body)');
    }
    const subPath = pathname.slice(API_BASE_PATH.length) || '/';
    const template = this.matchTemplate(subPath);
    const operation = template ? this.document.paths[template][method.toLowerCase()] : undefined;

    if (!template || !operation) {
      const [name, expected, code] = !template ? ['(unknown path)', 404, 'route_not_found'] : ['(method not allowed)', 405, 'method_not_allowed'];
      const allowed = [expected, ...BEFORE_ROUTING_STATUSES];
      const problems = allowed.includes(answer.status)
        ? this.schemaProblems(ERROR_REF, answer.body)
        : [
            template
              ? `${template} has no ${method} operation (it has ${this.methodsOf(template).join(', ')}): the answer must be ${expected} ${code} with the Error body, not ${answer.status}`
              : `no operation has this path: the answer must be ${expected} ${code} with the Error body, not ${answer.status}`,
          ];
      return { checked: true, operation: name, template, problems };
    }

    const operationId = String(operation.operationId);
    const responses = operation.responses as Json;
    const status = String(answer.status);
    const key = status in responses ? status : `${status[0]}XX` in responses ? `${status[0]}XX` : 'default' in responses ? 'default' : null;
    if (key === null) {
      return {
        checked: true,
        operation: operationId,
        template,
        problems: [`status ${status} is not documented for ${operationId} (documented: ${Object.keys(responses).join(', ')})`],
      };
    }
    const ref = this.responseSchemaRef(template, method.toLowerCase(), key);
    if (!ref) {
      const problems = answer.body === undefined ? [] : [`${operationId} documents no body for ${status}, but one came back`];
      return { checked: true, operation: operationId, template, problems };
    }
    return { checked: true, operation: operationId, template, problems: this.schemaProblems(ref, answer.body) };
  }

  private methodsOf(template: string): string[] {
    return Object.keys(this.document.paths[template]).filter((m) => METHODS.includes(m)).map((m) => m.toUpperCase());
  }

  private schemaProblems(ref: string, body: unknown): string[] {
    if (body === undefined) return ['the body is empty, but a JSON body is documented'];
    const validate = this.validator(ref);
    if (validate(body)) return [];
    return formatErrors(validate.errors ?? []);
  }

  /** Throws an Error naming method, path, status, operation and every problem when the answer is not as documented. */
  assert(answer: CheckedAnswer): void {
    const outcome = this.check(answer);
    if (!outcome.problems.length) return;
    const path = new URL(answer.url, 'http://localhost').pathname;
    const body = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    throw new Error(
      [
        `OpenAPI check: ${answer.method.toUpperCase()} ${path} answered ${answer.status}, which the document does not allow` +
          ` (operation ${outcome.operation}${outcome.template ? `, ${outcome.template}` : ''}):`,
        ...outcome.problems.map((p) => `  - ${p}`),
        `  body: ${body === undefined ? '(empty)' : body.length > 1000 ? `${body.slice(0, 1000)}…` : body}`,
        '  (a test that deliberately sends something outside the API may pass { checkOpenApi: false })',
      ].join('\n'),
    );
  }
}

/** Ajv's errors, one line each: where in the body, what is wrong. */
export function formatErrors(errors: ErrorObject[]): string[] {
  const lines = errors.map((e) => {
    const where = e.instancePath || '(body)';
    const params = e.params as Json;
    if (e.keyword === 'additionalProperties') return `${where}: unexpected field "${params.additionalProperty}" (the schema is closed)`;
    if (e.keyword === 'required') return `${where}: missing required field "${params.missingProperty}"`;
    if (e.keyword === 'enum') return `${where}: ${e.message} (${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')})`;
    if (e.keyword === 'const') return `${where}: must be ${JSON.stringify(params.allowedValue)}`;
    return `${where}: ${e.message}`;
  });
  return [...new Set(lines)];
}

let shared: OpenApiChecker | null = null;

/** The checker of the current manifest's document (built once per process). */
export function openApiChecker(): OpenApiChecker {
  return (shared ??= new OpenApiChecker());
}

/** Checks an answer against the document of the current manifest; see `OpenApiChecker.check`. */
export const checkAnswer = (answer: CheckedAnswer): CheckOutcome => openApiChecker().check(answer);

/** Throws when an answer is not as the document says; see `OpenApiChecker.assert`. */
export const assertAnswerMatchesOpenApi = (answer: CheckedAnswer): void => openApiChecker().assert(answer);
