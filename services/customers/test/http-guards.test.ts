/**
 * Everything the service refuses before it touches the database: internal auth, publishable keys,
 * permissions, body and query validation. Runs on the app with no database behind it.
 */
import { call, expectError, startDetached } from './helpers';

let base: string;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ url: base, stop } = await startDetached());
});
afterAll(() => stop());

const C = '/teams/{team}/customers';
const ONE = `${C}/cus_abcdefgh12345678`;
const G = '/teams/{team}/customer-groups';
const GROUP = `${G}/3f1c1f0e-0000-4000-8000-000000000001`;
const MEMBERS = `${GROUP}/members`;
const S = '/teams/{team}/customer-statuses';
const STATUS = `${S}/vip`;

const reads: [string, string][] = [['GET', C], ['GET', ONE], ['GET', G], ['GET', GROUP], ['GET', MEMBERS], ['GET', S]];
const customerWrites: [string, string][] = [
  ['POST', C], ['PATCH', ONE], ['DELETE', ONE], ['POST', G], ['PATCH', GROUP], ['DELETE', GROUP], ['POST', MEMBERS], ['DELETE', MEMBERS],
];
const settingsWrites: [string, string][] = [['POST', S], ['PATCH', STATUS], ['DELETE', STATUS]];
const all = [...reads, ...customerWrites, ...settingsWrites];

describe('internal auth', () => {
  test.each(all)('%s %s without a token is 401', async (method, path) => {
    expectError(await call(base, method, path, { as: null }), 401, 'internal_token_invalid');
  });
  test.each(all)('%s %s with a forged token is 401', async (method, path) => {
    expectError(await call(base, method, path, { token: 'eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl' }), 401, 'internal_token_invalid');
  });
});

describe('publishable keys and permissions', () => {
  const pk = { keyType: 'publishable' as const, permissions: ['view_customers', 'manage_customers', 'manage_settings'] as any };
  test.each(reads)('%s %s with a publishable key is 403 publishable_key_forbidden', async (m, p) => {
    expectError(await call(base, m, p, { as: pk }), 403, 'publishable_key_forbidden');
  });
  test.each([...customerWrites, ...settingsWrites])('%s %s with a publishable key is 403 publishable_key_write', async (m, p) => {
    expectError(await call(base, m, p, { as: pk, body: { name: 'x' } }), 403, 'publishable_key_write');
  });
  test.each(reads)('%s %s without view_customers is 403', async (m, p) => {
    expectError(await call(base, m, p, { as: { permissions: ['manage_customers', 'manage_settings'] } }), 403, 'insufficient_permissions');
  });
  test.each(customerWrites)('%s %s without manage_customers is 403', async (m, p) => {
    expectError(await call(base, m, p, { as: { permissions: ['view_customers', 'manage_settings'] }, body: {} }), 403, 'insufficient_permissions');
  });
  test.each(settingsWrites)('%s %s without manage_settings is 403 (manage_customers is not enough)', async (m, p) => {
    expectError(await call(base, m, p, { as: { permissions: ['view_customers', 'manage_customers'] }, body: {} }), 403, 'insufficient_permissions');
  });
});

describe('validation before the database', () => {
  test('bodies must be JSON objects', async () => {
    for (const [m, p] of [['POST', C], ['PATCH', ONE], ['POST', G], ['PATCH', GROUP], ['POST', MEMBERS], ['POST', S], ['PATCH', STATUS]]) {
      expectError(await call(base, m, p, { body: ['x'] }), 400, 'invalid_json');
      expectError(await call(base, m, p, { rawBody: '{"name":' }), 400, 'invalid_json');
    }
  });
  test('an unknown query parameter is 400 naming it, on every operation', async () => {
    for (const [m, p] of all) {
      const qs = m === 'DELETE' && p === MEMBERS ? '?customerId=cus_abcdefgh12345678&x=1' : '?x=1';
      expectError(await call(base, m, p + qs, { body: m === 'GET' ? undefined : {} }), 400, 'parameter_invalid', 'x');
    }
  });
  test('a URL naming another team than the token\'s is 403 team_access_denied, as the gateway answers', async () => {
    const other = '0b1c1f0e-0000-4000-8000-000000000009';
    for (const [m, p] of all) expectError(await call(base, m, p.replace('{team}', other), { body: m === 'GET' ? undefined : {} }), 403, 'team_access_denied');
  });
  test('an unknown route is 404 route_not_found', async () => {
    expectError(await call(base, 'GET', '/teams/{team}/customer-things'), 404, 'route_not_found');
  });
});
