import { randomUUID } from 'node:crypto';
import { OpenApiChecker, type CheckedAnswer } from '../src/openapi-check';

const checker = new OpenApiChecker();
const doc = checker.document;
const TEAM = randomUUID();
const API = 'http://127.0.0.1:8080/api/v1';
const NOW = '2026-01-05T09:30:12.345Z';
const meta = { requestId: 'req_abc', timestamp: NOW };

const whoami = {
  teamId: TEAM,
  teamName: 'Acme Support',
  teamSlug: 'acme-support',
  keyId: 'key_abc',
  keyType: 'secret',
  memberId: null,
  environment: 'test',
  createdAt: NOW,
  subscriptionStatus: 'active',
};
const group = {
  id: randomUUID(),
  object: 'customer_group',
  name: 'VIP',
  slug: 'vip',
  description: null,
  externalId: null,
  customFields: { tier: 'gold' },
  customerCount: 0,
  createdAt: NOW,
  updatedAt: NOW,
};
const pagination = { page: 1, pageSize: 25, total: 1, totalPages: 1, hasMore: false };
const errorBody = (type: string, code: string, extra: Record<string, unknown> = {}) => ({
  success: false,
  error: { type, code, message: 'No.', doc_url: `https://docs.helpdesk.dev/errors#${code.toLowerCase()}`, request_id: 'req_abc', ...extra },
  meta,
});

const problems = (a: Omit<CheckedAnswer, 'url'> & { path: string }) => checker.check({ ...a, url: API + a.path }).problems;

describe('OpenApiChecker', () => {
  it('compiles every response schema of the document (ajv, JSON Schema 2020-12)', () => {
    expect(checker.compileAll()).toBeGreaterThan(Object.keys(doc.paths).length);
  });

  it('passes a documented answer, and names the operation it matched', () => {
    const outcome = checker.check({ method: 'GET', url: `${API}/auth/whoami`, status: 200, body: { success: true, data: whoami, meta } });
    expect(outcome).toEqual({ checked: true, operation: 'whoami', template: '/auth/whoami', problems: [] });
    expect(problems({ method: 'GET', path: '/auth/whoami', status: 401, body: errorBody('authentication_error', 'invalid_api_key') })).toEqual([]);
  });

  it('fails an undocumented status', () => {
    expect(problems({ method: 'GET', path: '/auth/whoami', status: 404, body: errorBody('not_found_error', 'resource_not_found') })).toEqual([
      'status 404 is not documented for whoami (documented: 200, 400, 401, 403, 429, 500, 503)',
    ]);
    expect(problems({ method: 'GET', path: `/teams/${TEAM}/tickets`, status: 201, body: { success: true, data: [], meta } })[0]).toMatch(
      /^status 201 is not documented for listTickets/,
    );
  });

  it('fails an extra field (the response schemas are closed), in data, meta or the error', () => {
    expect(problems({ method: 'GET', path: '/auth/whoami', status: 200, body: { success: true, data: { ...whoami, plan: 'pro' }, meta } })).toEqual([
      '/data: unexpected field "plan" (the schema is closed)',
    ]);
    expect(problems({ method: 'GET', path: '/auth/whoami', status: 200, body: { success: true, data: whoami, meta: { ...meta, extra: 1 } } })).toEqual([
      '/meta: unexpected field "extra" (the schema is closed)',
    ]);
    expect(problems({ method: 'GET', path: '/auth/whoami', status: 401, body: errorBody('authentication_error', 'invalid_api_key', { hint: 'x' }) })).toEqual([
      '/error: unexpected field "hint" (the schema is closed)',
    ]);
  });

  it('fails a missing required field, a wrong type and a value outside an enum', () => {
    const { teamName: _drop, ...withoutName } = whoami;
    expect(problems({ method: 'GET', path: '/auth/whoami', status: 200, body: { success: true, data: withoutName, meta } })).toEqual([
      '/data: missing required field "teamName"',
    ]);
    expect(problems({ method: 'GET', path: '/auth/whoami', status: 200, body: { success: true, data: { ...whoami, keyType: 'admin' }, meta } })).toEqual([
      '/data/keyType: must be equal to one of the allowed values ("secret", "publishable", "session")',
    ]);
    expect(problems({ method: 'GET', path: '/auth/whoami', status: 200, body: { data: whoami } })).toEqual([
      '(body): missing required field "success"',
      '(body): missing required field "meta"',
    ]);
    expect(problems({ method: 'GET', path: '/auth/whoami', status: 200, body: { success: true, data: whoami, meta: { ...meta, timestamp: 'yesterday' } } })).toEqual([
      '/meta/timestamp: must match format "date-time"',
    ]);
  });

  it('passes the bare customer-group shapes: the object itself, {data, pagination}, and fails them in the envelope', () => {
    const G = `/teams/${TEAM}/customer-groups`;
    expect(problems({ method: 'GET', path: `${G}/${group.id}`, status: 200, body: group })).toEqual([]);
    expect(problems({ method: 'POST', path: G, status: 201, body: group })).toEqual([]);
    expect(problems({ method: 'GET', path: G, status: 200, body: { data: [group], pagination } })).toEqual([]);
    const member = { id: 'cus_abcdefgh12345678', object: 'customer', name: 'Ada', email: 'ada@example.com', joinedGroupAt: NOW };
    expect(problems({ method: 'GET', path: `${G}/${group.id}/members`, status: 200, body: { data: [member], pagination } })).toEqual([]);
    expect(problems({ method: 'DELETE', path: `${G}/${group.id}`, status: 200, body: { deleted: true, id: group.id } })).toEqual([]);
    expect(problems({ method: 'GET', path: `${G}/${group.id}`, status: 200, body: { success: true, data: group, meta } }).length).toBeGreaterThan(0);
    expect(problems({ method: 'GET', path: G, status: 200, body: { success: true, data: [group], meta: { ...meta, pagination } } }).length).toBeGreaterThan(0);
  });

  it('an unknown path must answer 404 with the Error body (or a refusal before routing: 401, 429, 5xx)', () => {
    const notFound = errorBody('not_found_error', 'route_not_found');
    for (const path of ['/nope', `/teams/${TEAM}/tickets/tkt_abcdefgh/nope`, `/teams/${TEAM}`, '/', '']) {
      expect([path, problems({ method: 'GET', path, status: 404, body: notFound })]).toEqual([path, []]);
    }
    expect(checker.check({ method: 'GET', url: `${API}/nope`, status: 404, body: notFound }).operation).toBe('(unknown path)');
    expect(problems({ method: 'GET', path: '/nope', status: 401, body: errorBody('authentication_error', 'authentication_required') })).toEqual([]);
    expect(problems({ method: 'GET', path: '/nope', status: 200, body: { success: true, data: {}, meta } })).toEqual([
      'no operation has this path: the answer must be 404 route_not_found with the Error body, not 200',
    ]);
    expect(problems({ method: 'GET', path: '/nope', status: 404, body: { message: 'not found' } }).length).toBeGreaterThan(0);
  });

  it('a known path with another method must answer 405 with the Error body', () => {
    const path = `/teams/${TEAM}/tickets/tkt_abcdefghijkl`;
    const notAllowed = errorBody('invalid_request_error', 'method_not_allowed');
    expect(checker.check({ method: 'PUT', url: API + path, status: 405, body: notAllowed })).toEqual({
      checked: true,
      operation: '(method not allowed)',
      template: '/teams/{teamId}/tickets/{ticketId}',
      problems: [],
    });
    const [problem, ...more] = problems({ method: 'PUT', path, status: 404, body: errorBody('not_found_error', 'route_not_found') });
    expect(more).toEqual([]);
    expect(problem).toMatch(/^\/teams\/\{teamId\}\/tickets\/\{ticketId\} has no PUT operation \(it has (GET|PATCH|DELETE), (GET|PATCH|DELETE), (GET|PATCH|DELETE)\): /);
    expect(problem).toMatch(/the answer must be 405 method_not_allowed with the Error body, not 404$/);
  });

  it('matches as the gateway does: static segments win, one trailing slash, query strings and any segment value', () => {
    expect(checker.matchTemplate('/teams/x/webhooks/trigger-test')).toBe('/teams/{teamId}/webhooks/trigger-test');
    expect(checker.matchTemplate('/teams/x/webhooks/whk_abc')).toBe('/teams/{teamId}/webhooks/{webhookId}');
    expect(checker.matchTemplate('/teams/x/tickets/')).toBe('/teams/{teamId}/tickets');
    expect(checker.matchTemplate('/teams/x/tickets//')).toBeNull();
    expect(checker.matchTemplate('/teams//tickets')).toBeNull();
    // GET on the trigger-test path is a 405 (POST only), not getWebhook
    expect(problems({ method: 'GET', path: `/teams/${TEAM}/webhooks/trigger-test`, status: 405, body: errorBody('invalid_request_error', 'method_not_allowed') })).toEqual([]);
    // a malformed id still matches its template: 400 invalid_id_format is documented
    const bad = errorBody('invalid_request_error', 'invalid_id_format', { param: 'ticketId' });
    expect(problems({ method: 'GET', path: `/teams/${TEAM}/tickets/not-an-id?expand[]=customer`, status: 400, body: bad })).toEqual([]);
  });

  it('keeps error codes as sent: an uppercase code (PARAMETER_INVALID) passes', () => {
    const body = errorBody('invalid_request_error', 'PARAMETER_INVALID', { param: 'name' });
    expect(problems({ method: 'POST', path: `/teams/${TEAM}/customer-groups`, status: 400, body })).toEqual([]);
  });

  it('skips what is not JSON or not under /api/v1 (the /docs HTML, health, an empty 204)', () => {
    expect(checker.check({ method: 'GET', url: 'http://127.0.0.1:8080/docs/', status: 200, body: '<html></html>', contentType: 'text/html' }).checked).toBe(false);
    expect(checker.check({ method: 'GET', url: 'http://127.0.0.1:8080/healthz', status: 200, body: { success: true }, contentType: 'application/json' }).checked).toBe(false);
    expect(checker.check({ method: 'GET', url: `${API}/auth/whoami`, status: 502, body: 'Bad gateway', contentType: 'text/plain' }).checked).toBe(false);
    expect(checker.check({ method: 'OPTIONS', url: `${API}/auth/whoami`, status: 204, body: undefined, contentType: null }).checked).toBe(false);
    expect(checker.check({ method: 'GET', url: '/api/v1beta/x', status: 200, body: {} }).checked).toBe(false);
  });

  it('a JSON answer with no body where one is documented fails', () => {
    expect(problems({ method: 'GET', path: '/auth/whoami', status: 200, body: undefined })).toEqual(['the body is empty, but a JSON body is documented']);
  });

  it('assert throws one Error naming method, path, status, operation and every problem', () => {
    const body = { success: true, data: { ...whoami, plan: 'pro' }, meta };
    expect(() => checker.assert({ method: 'get', url: `${API}/auth/whoami?x=1`, status: 200, body })).toThrow(
      /^OpenAPI check: GET \/api\/v1\/auth\/whoami answered 200, which the document does not allow \(operation whoami, \/auth\/whoami\):\n {2}- \/data: unexpected field "plan"/,
    );
    expect(() => checker.assert({ method: 'GET', url: `${API}/auth/whoami`, status: 200, body: { success: true, data: whoami, meta } })).not.toThrow();
  });
});
