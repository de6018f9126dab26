/** Everything refused before the first query: internal token, publishable keys, permissions, input checks. */
import { PERMISSIONS } from '@helpdesk/contracts';
import { call, expectError, startDetached, TEAM_B } from './helpers';

let app: { url: string; stop: () => Promise<void> };
beforeAll(async () => {
  app = await startDetached();
});
afterAll(async () => app?.stop());

const W = '/teams/{team}/webhooks';
const ID = 'whk_abcdefgh12345678abcdefgh';
const DLV = 'dlv_abcdefgh12345678abcdefgh';

const reads: [string, string][] = [
  ['GET', W],
  ['GET', `${W}/${ID}`],
  ['GET', `${W}/${ID}/deliveries`],
  ['GET', `${W}/${ID}/deliveries/${DLV}`],
];
const writes: [string, string, unknown][] = [
  ['POST', W, { name: 'n', url: 'https://example.com', events: '*' }],
  ['PATCH', `${W}/${ID}`, { name: 'n' }],
  ['DELETE', `${W}/${ID}`, undefined],
  ['POST', `${W}/trigger-test`, { event: 'ticket.created' }],
  ['POST', `${W}/${ID}/deliveries/${DLV}/redeliver`, {}],
];

test.each([...reads, ...writes.map(([m, p]) => [m, p] as [string, string])])('%s %s without an internal token is 401', async (method, path) => {
  expectError(await call(app.url, method, path, { as: null }), 401, 'internal_token_invalid');
});

test.each(reads)('%s %s with a publishable key is publishable_key_forbidden', async (method, path) => {
  expectError(await call(app.url, method, path, { as: { keyType: 'publishable' } }), 403, 'publishable_key_forbidden');
});

test.each(writes)('%s %s with a publishable key is publishable_key_write', async (method, path, body) => {
  expectError(await call(app.url, method, path, { as: { keyType: 'publishable' }, body }), 403, 'publishable_key_write');
});

test.each(reads)('%s %s without view_webhooks is insufficient_permissions', async (method, path) => {
  const permissions = PERMISSIONS.filter((p) => p !== 'view_webhooks');
  expectError(await call(app.url, method, path, { as: { permissions } }), 403, 'insufficient_permissions');
});

test.each(writes)('%s %s without manage_webhooks is insufficient_permissions', async (method, path, body) => {
  const permissions = PERMISSIONS.filter((p) => p !== 'manage_webhooks');
  expectError(await call(app.url, method, path, { as: { permissions }, body }), 403, 'insufficient_permissions');
});

test.each([
  [{ url: 'https://example.com', events: '*' }, 'parameter_missing', 'name'],
  [{ name: 'n', events: '*' }, 'parameter_missing', 'url'],
  [{ name: 'n', url: 'https://example.com' }, 'parameter_missing', 'events'],
  [{ name: 'n', url: 'https://example.com', events: '*', secret: 'whsec_x' }, 'parameter_invalid', 'secret'],
  [{ name: 'n', url: 'https://example.com', events: 'ticket.nope' }, 'parameter_invalid', 'events'],
])('POST a bad body %j is refused before any query', async (body, code, param) => {
  expectError(await call(app.url, 'POST', W, { body }), 400, code, param);
});

test('trigger-test: an unknown event is PARAMETER_INVALID in uppercase, as the spec shows', async () => {
  const r = await call(app.url, 'POST', `${W}/trigger-test`, { body: { event: 'ticket.exploded' } });
  expect(r.status).toBe(400);
  expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code: 'PARAMETER_INVALID', param: 'event' });
});

test.each([...reads, ...writes.map(([m, p]) => [m, p] as [string, string])])('%s %s naming another team than the token is team_access_denied', async (method, path) => {
  expectError(await call(app.url, method, path.replace('{team}', TEAM_B)), 403, 'team_access_denied');
});

test.each(reads)('%s %s with an unknown query parameter is refused, naming it', async (method, path) => {
  expectError(await call(app.url, method, `${path}?colour=red`), 400, 'parameter_invalid', 'colour');
});
