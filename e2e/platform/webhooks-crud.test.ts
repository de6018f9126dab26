/** Webhook subscriptions through the gateway: create, list, get, update, delete, and every refusal. */
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { expectError, expectOk, ISO } from './helpdesk-helpers';
import { createWebhook, newTeam, WEBHOOK_KEYS, WebhookEventLog, WHK_ID, type Team } from './webhooks-helpers';

let tp: TestPlatform;
let log: WebhookEventLog;
let t: Team;
let marker: string;

beforeAll(async () => {
  // allowLoopback on, as in local development: plain http to loopback is then accepted, nothing else changes.
  tp = await startTestPlatform({ webhooks: { allowLoopback: true } });
  log = await WebhookEventLog.start(tp);
  t = await newTeam(tp);
  marker = (await createWebhook(t, { name: 'marker', url: 'https://marker.example.com/hook', events: 'ticket.closed' })).id;
}, 60_000);
afterAll(async () => tp?.stop(), 60_000);

const W = () => `${t.path}/webhooks`;
const total = async (): Promise<number> => {
  const res = await t.api.get(W(), { query: { pageSize: 1 } });
  expectOk(res, 200);
  return res.body.meta.pagination.total;
};

/** The refused request wrote nothing and published nothing. */
async function expectNothingFrom(requestId: string): Promise<void> {
  await log.settle(t, marker);
  expect(log.ofRequest(requestId)).toEqual([]);
}

describe('POST /webhooks', () => {
  it('creates a webhook: 201, the secret shown once, events as an array, webhook.created without the secret', async () => {
    const res = await t.api.post(W(), { name: 'CRM sync', url: 'https://crm.example.com/hooks/helpdesk', events: 'ticket.created, ticket.closed' });
    const w = expectOk(res, 201);
    expect(Object.keys(w).sort()).toEqual([...WEBHOOK_KEYS, 'secret'].sort());
    expect(w).toMatchObject({ name: 'CRM sync', url: 'https://crm.example.com/hooks/helpdesk', events: ['ticket.created', 'ticket.closed'], isActive: true });
    expect(w.id).toMatch(WHK_ID);
    expect(w.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(w.createdAt).toMatch(ISO);
    expect(w.updatedAt).toBe(w.createdAt);

    const got = expectOk(await t.api.get(`${W()}/${w.id}`), 200);
    const { secret, ...pub } = w;
    expect(got).toEqual(pub);
    const list = await t.api.get(W(), { query: { pageSize: 100 } });
    expect(list.body.data.find((x: any) => x.id === w.id)).toEqual(pub);
    expect(list.text).not.toContain(secret);

    const e = await log.waitFor((x) => x.requestId === res.body.meta.requestId, 'webhook.created');
    expect(e).toMatchObject({ type: 'webhook.created', teamId: t.keys.teamId, mode: 'test', data: { webhook: pub } });
    expect(JSON.stringify(log.events)).not.toContain(secret);
  });

  it('accepts events as an array too, trims items and drops repeats; * and <category>.* are patterns', async () => {
    const w = await createWebhook(t, { name: 'all', url: 'https://all.example.com', events: [' ticket.* ', 'webhook.*', '*', 'ticket.*'] });
    expect(w.events).toEqual(['ticket.*', 'webhook.*', '*']);
    expect(w.url).toBe('https://all.example.com/');
    const plain = await createWebhook(t, { name: 'http loopback', url: 'http://127.0.0.1:9/hook', events: 'customer_group.member_added' });
    expect(plain.url).toBe('http://127.0.0.1:9/hook');
  });

  it('the same url with the same events (in any order) is 409 and writes nothing; other events, partitions or teams are fine', async () => {
    await createWebhook(t, { name: 'a', url: 'https://dup.example.com/x', events: 'ticket.created,ticket.updated' });
    const before = await total();
    const res = await t.api.post(W(), { name: 'b', url: 'https://DUP.example.com/x', events: ['ticket.updated', 'ticket.created', 'ticket.created'] });
    expectError(res, 409, 'conflict_error', 'resource_conflict', 'url');
    expect(await total()).toBe(before);
    await expectNothingFrom(res.body.error.request_id);
    await createWebhook(t, { name: 'c', url: 'https://dup.example.com/x', events: 'ticket.created' });
    await createWebhook(t, { name: 'd', url: 'https://dup.example.com/x', events: 'ticket.created,ticket.updated' }, t.live);
    const other = await newTeam(tp);
    await createWebhook(other, { name: 'e', url: 'https://dup.example.com/x', events: 'ticket.created,ticket.updated' });
  });

  it('allows 20 webhooks per team and partition; the 21st is 409', async () => {
    const small = await newTeam(tp);
    for (let i = 0; i < 20; i++) await createWebhook(small, { name: `w${i}`, url: `https://limit.example.com/${i}`, events: '*' });
    const res = await small.api.post(`${small.path}/webhooks`, { name: 'w20', url: 'https://limit.example.com/20', events: '*' });
    expectError(res, 409, 'conflict_error', 'resource_conflict', undefined);
    expect(res.body.error.message).toMatch(/20 webhooks/);
    await createWebhook(small, { name: 'live', url: 'https://limit.example.com/20', events: '*' }, small.live);
  }, 120_000); // 22 creates, each checking its URL's host: slow on a loaded machine

  const long = 'x'.repeat(256);
  const bad: [string, unknown, string, string][] = [
    ['missing name', { url: 'https://a.example.com', events: '*' }, 'parameter_missing', 'name'],
    ['missing url', { name: 'n', events: '*' }, 'parameter_missing', 'url'],
    ['missing events', { name: 'n', url: 'https://a.example.com' }, 'parameter_missing', 'events'],
    ['name wrong type', { name: 5, url: 'https://a.example.com', events: '*' }, 'parameter_invalid', 'name'],
    ['name null', { name: null, url: 'https://a.example.com', events: '*' }, 'parameter_invalid', 'name'],
    ['name empty', { name: '  ', url: 'https://a.example.com', events: '*' }, 'parameter_invalid', 'name'],
    ['name of 256', { name: long, url: 'https://a.example.com', events: '*' }, 'parameter_invalid', 'name'],
    ['url wrong type', { name: 'n', url: 443, events: '*' }, 'parameter_invalid', 'url'],
    ['url not a URL', { name: 'n', url: 'a.example.com/hook', events: '*' }, 'parameter_invalid', 'url'],
    ['url over 2048 characters', { name: 'n', url: `https://a.example.com/${'p'.repeat(2048)}`, events: '*' }, 'parameter_invalid', 'url'],
    ['url plain http to a public host', { name: 'n', url: 'http://a.example.com/hook', events: '*' }, 'parameter_invalid', 'url'],
    ['url ftp', { name: 'n', url: 'ftp://a.example.com/hook', events: '*' }, 'parameter_invalid', 'url'],
    ['url with credentials', { name: 'n', url: 'https://u:p@a.example.com/hook', events: '*' }, 'parameter_invalid', 'url'],
    ['url on a private address', { name: 'n', url: 'https://10.0.0.1/hook', events: '*' }, 'parameter_invalid', 'url'],
    ['url on the metadata address', { name: 'n', url: 'https://169.254.169.254/latest', events: '*' }, 'parameter_invalid', 'url'],
    ['url on an IPv4-mapped private address', { name: 'n', url: 'https://[::ffff:192.168.1.1]/', events: '*' }, 'parameter_invalid', 'url'],
    ['events wrong type', { name: 'n', url: 'https://a.example.com', events: 5 }, 'parameter_invalid', 'events'],
    ['events array of numbers', { name: 'n', url: 'https://a.example.com', events: [1] }, 'parameter_invalid', 'events'],
    ['events empty', { name: 'n', url: 'https://a.example.com', events: '' }, 'parameter_invalid', 'events'],
    ['events empty array', { name: 'n', url: 'https://a.example.com', events: [] }, 'parameter_invalid', 'events'],
    ['events with an empty item', { name: 'n', url: 'https://a.example.com', events: 'ticket.created,,ticket.closed' }, 'parameter_invalid', 'events'],
    ['an unknown event type', { name: 'n', url: 'https://a.example.com', events: 'ticket.created,ticket.exploded' }, 'parameter_invalid', 'events'],
    ['a pattern of an unknown category', { name: 'n', url: 'https://a.example.com', events: 'spaceship.*' }, 'parameter_invalid', 'events'],
    ['an AMQP-style pattern', { name: 'n', url: 'https://a.example.com', events: 'ticket.#' }, 'parameter_invalid', 'events'],
    ['101 events', { name: 'n', url: 'https://a.example.com', events: Array.from({ length: 101 }, () => 'ticket.created') }, 'parameter_invalid', 'events'],
    ['unknown field', { name: 'n', url: 'https://a.example.com', events: '*', colour: 'red' }, 'parameter_invalid', 'colour'],
    ['a secret of its own', { name: 'n', url: 'https://a.example.com', events: '*', secret: 'whsec_mine' }, 'parameter_invalid', 'secret'],
    ['isActive on create', { name: 'n', url: 'https://a.example.com', events: '*', isActive: false }, 'parameter_invalid', 'isActive'],
  ];
  it.each(bad)('refuses %s with 400, writes nothing and emits nothing', async (_name, body, code, param) => {
    const before = await total();
    const res = await t.api.post(W(), body);
    expectError(res, 400, 'invalid_request_error', code, param);
    expect(await total()).toBe(before);
    await expectNothingFrom(res.body.error.request_id);
  });

  it('refuses a body that is not a JSON object (invalid_json)', async () => {
    expectError(await t.api.post(W(), ['x']), 400, 'invalid_request_error', 'invalid_json', undefined);
    expectError(await t.api.request('POST', W(), { rawBody: '{"name":' }), 400, 'invalid_request_error', 'invalid_json', undefined);
  });

  it('refuses publishable keys, other teams and keys without manage_webhooks, writing nothing', async () => {
    const body = { name: 'n', url: 'https://refused.example.com', events: '*' };
    const before = await total();
    expectError(await t.api.withKey(t.keys.pk_test).post(W(), body), 403, 'authorization_error', 'publishable_key_write', undefined);
    expectError(await t.api.withKey(t.keys.pk_live).post(W(), body), 403, 'authorization_error', 'publishable_key_write', undefined);
    const other = await newTeam(tp);
    expectError(await other.api.post(W(), body), 403, 'authorization_error', 'team_access_denied', undefined);
    expect(await total()).toBe(before);
  });
});

describe('GET /webhooks', () => {
  let team: Team;
  let ids: string[];
  beforeAll(async () => {
    team = await newTeam(tp);
    ids = [];
    for (let i = 0; i < 3; i++) ids.push((await createWebhook(team, { name: `w${i}`, url: `https://list.example.com/${i}`, events: '*' })).id);
    await team.api.patch(`${team.path}/webhooks/${ids[1]}`, { isActive: false });
  });

  it('lists newest first in the standard envelope with meta.pagination (default page size 20)', async () => {
    const res = await team.api.get(`${team.path}/webhooks`);
    const data = expectOk(res, 200);
    expect(data.map((w: any) => w.id)).toEqual([...ids].reverse());
    for (const w of data) expect(Object.keys(w).sort()).toEqual(WEBHOOK_KEYS);
    expect(res.body.meta.pagination).toEqual({ page: 1, pageSize: 20, total: 3, totalPages: 1, hasMore: false });
  });

  it('pages with page and pageSize, and filters on isActive', async () => {
    const p1 = await team.api.get(`${team.path}/webhooks`, { query: { pageSize: 2 } });
    expect(p1.body.data.map((w: any) => w.id)).toEqual([ids[2], ids[1]]);
    expect(p1.body.meta.pagination).toEqual({ page: 1, pageSize: 2, total: 3, totalPages: 2, hasMore: true });
    const p2 = await team.api.get(`${team.path}/webhooks`, { query: { pageSize: 2, page: 2 } });
    expect(p2.body.data.map((w: any) => w.id)).toEqual([ids[0]]);
    expect(p2.body.meta.pagination.hasMore).toBe(false);
    expect((await team.api.get(`${team.path}/webhooks`, { query: { isActive: false } })).body.data.map((w: any) => w.id)).toEqual([ids[1]]);
    expect((await team.api.get(`${team.path}/webhooks`, { query: { isActive: true, pageSize: 100 } })).body.data).toHaveLength(2);
  });

  it('the live partition and other teams see none of them', async () => {
    expect(expectOk(await team.live.get(`${team.path}/webhooks`), 200)).toEqual([]);
    const other = await newTeam(tp);
    expect(expectOk(await other.api.get(`${other.path}/webhooks`), 200)).toEqual([]);
  });

  it.each([
    ['page 0', { page: 0 }, 'page'],
    ['pageSize 101', { pageSize: 101 }, 'pageSize'],
    ['pageSize 0', { pageSize: 0 }, 'pageSize'],
    ['pageSize not a number', { pageSize: 'ten' }, 'pageSize'],
    ['isActive not a boolean', { isActive: 'yes' }, 'isActive'],
    ['an unknown parameter', { secret: 'x' }, 'secret'],
  ])('refuses %s with 400', async (_n, query, param) => {
    expectError(await team.api.get(`${team.path}/webhooks`, { query: query as any }), 400, 'invalid_request_error', 'parameter_invalid', param);
  });

  it('refuses publishable keys (a staff resource) and other teams', async () => {
    expectError(await team.api.withKey(team.keys.pk_test).get(`${team.path}/webhooks`), 403, 'authorization_error', 'publishable_key_forbidden', undefined);
    expectError(await t.api.get(`${team.path}/webhooks`), 403, 'authorization_error', 'team_access_denied', undefined);
  });
});

describe('GET /webhooks/{id}', () => {
  it('404 for an unknown id, another partition and another team; 400 for a malformed id or an unknown parameter', async () => {
    const w = await createWebhook(t, { name: 'g', url: 'https://get.example.com', events: '*' });
    expectOk(await t.api.get(`${W()}/${w.id}`), 200);
    expectError(await t.api.get(`${W()}/whk_000000000000000000000000`), 404, 'not_found_error', 'resource_not_found', undefined);
    expectError(await t.live.get(`${W()}/${w.id}`), 404, 'not_found_error', 'resource_not_found', undefined);
    const other = await newTeam(tp);
    expectError(await other.api.get(`${other.path}/webhooks/${w.id}`), 404, 'not_found_error', 'resource_not_found', undefined);
    expectError(await other.api.get(`${W()}/${w.id}`), 403, 'authorization_error', 'team_access_denied', undefined);
    expectError(await t.api.get(`${W()}/not-an-id`), 400, 'invalid_request_error', 'invalid_id_format', 'webhookId');
    expectError(await t.api.get(`${W()}/${w.id}`, { query: { expand: 'secret' } }), 400, 'invalid_request_error', 'parameter_invalid', 'expand');
    expectError(await t.api.withKey(t.keys.pk_test).get(`${W()}/${w.id}`), 403, 'authorization_error', 'publishable_key_forbidden', undefined);
  });
});

describe('PATCH /webhooks/{id}', () => {
  it('changes name, url, events and isActive; webhook.updated names the changes; an unchanged PATCH emits nothing', async () => {
    const w = await createWebhook(t, { name: 'p', url: 'https://patch.example.com/a', events: 'ticket.created' });
    const res = await t.api.patch(`${W()}/${w.id}`, { name: 'renamed', url: 'https://patch.example.com/b', events: 'ticket.*,customer.created', isActive: false });
    const u = expectOk(res, 200);
    expect(Object.keys(u).sort()).toEqual(WEBHOOK_KEYS);
    expect(u).toMatchObject({ id: w.id, name: 'renamed', url: 'https://patch.example.com/b', events: ['ticket.*', 'customer.created'], isActive: false, createdAt: w.createdAt });
    const e = await log.waitFor((x) => x.requestId === res.body.meta.requestId, 'webhook.updated');
    expect(e).toMatchObject({ type: 'webhook.updated', data: { webhook: u, changes: ['name', 'url', 'events', 'isActive'], previous: { name: 'p', url: 'https://patch.example.com/a', events: ['ticket.created'], isActive: true } } });
    expect(expectOk(await t.api.get(`${W()}/${w.id}`), 200)).toEqual(u);

    const again = await t.api.patch(`${W()}/${w.id}`, { name: 'renamed', isActive: false, events: ['ticket.*', 'customer.created'] });
    expect(expectOk(again, 200)).toEqual(u);
    const empty = await t.api.patch(`${W()}/${w.id}`, {});
    expect(expectOk(empty, 200)).toEqual(u);
    await log.settle(t, marker);
    expect(log.ofRequest(again.body.meta.requestId)).toEqual([]);
    expect(log.ofRequest(empty.body.meta.requestId)).toEqual([]);

    const on = expectOk(await t.api.patch(`${W()}/${w.id}`, { isActive: true }), 200);
    expect(on.isActive).toBe(true);
  });

  it('a change that makes it a duplicate of another webhook is 409 and changes nothing', async () => {
    const a = await createWebhook(t, { name: 'a', url: 'https://pdup.example.com/1', events: 'ticket.created' });
    const b = await createWebhook(t, { name: 'b', url: 'https://pdup.example.com/2', events: 'ticket.created' });
    const res = await t.api.patch(`${W()}/${b.id}`, { url: 'https://pdup.example.com/1' });
    expectError(res, 409, 'conflict_error', 'resource_conflict', 'url');
    expect(expectOk(await t.api.get(`${W()}/${b.id}`), 200).url).toBe('https://pdup.example.com/2');
    await expectNothingFrom(res.body.error.request_id);
    expectOk(await t.api.patch(`${W()}/${b.id}`, { url: 'https://pdup.example.com/1', events: 'ticket.created,ticket.closed' }), 200);
    expect(a.id).not.toBe(b.id);
  });

  const bad: [string, unknown, string, string][] = [
    ['unknown field', { colour: 'red' }, 'parameter_invalid', 'colour'],
    ['secret', { secret: 'whsec_x' }, 'parameter_invalid', 'secret'],
    ['isActive not a boolean', { isActive: 'false' }, 'parameter_invalid', 'isActive'],
    ['isActive null', { isActive: null }, 'parameter_invalid', 'isActive'],
    ['name empty', { name: '' }, 'parameter_invalid', 'name'],
    ['name of 256', { name: 'n'.repeat(256) }, 'parameter_invalid', 'name'],
    ['name wrong type', { name: ['a'] }, 'parameter_invalid', 'name'],
    ['url plain http to a public host', { url: 'http://a.example.com' }, 'parameter_invalid', 'url'],
    ['url on a private address', { url: 'https://192.168.0.10/x' }, 'parameter_invalid', 'url'],
    ['url on a CGNAT address', { url: 'https://100.64.1.1/x' }, 'parameter_invalid', 'url'],
    ['url on the IPv6 metadata address', { url: 'https://[fd00:ec2::254]/x' }, 'parameter_invalid', 'url'],
    ['url wrong type', { url: true }, 'parameter_invalid', 'url'],
    ['an unknown event', { events: 'ticket.created,nope' }, 'parameter_invalid', 'events'],
    ['events empty', { events: ' ' }, 'parameter_invalid', 'events'],
  ];
  it.each(bad)('refuses %s with 400, changes nothing and emits nothing', async (_n, body, code, param) => {
    const before = expectOk(await t.api.get(`${W()}/${marker}`), 200);
    const res = await t.api.patch(`${W()}/${marker}`, body);
    expectError(res, 400, 'invalid_request_error', code, param);
    expect(expectOk(await t.api.get(`${W()}/${marker}`), 200)).toEqual(before);
    await expectNothingFrom(res.body.error.request_id);
  });

  it('404 in another partition, for an unknown id, and refuses publishable keys and other teams', async () => {
    expectError(await t.live.patch(`${W()}/${marker}`, { name: 'x' }), 404, 'not_found_error', 'resource_not_found', undefined);
    expectError(await t.api.patch(`${W()}/whk_000000000000000000000000`, { name: 'x' }), 404, 'not_found_error', 'resource_not_found', undefined);
    expectError(await t.api.withKey(t.keys.pk_test).patch(`${W()}/${marker}`, { name: 'x' }), 403, 'authorization_error', 'publishable_key_write', undefined);
    const other = await newTeam(tp);
    expectError(await other.api.patch(`${W()}/${marker}`, { name: 'x' }), 403, 'authorization_error', 'team_access_denied', undefined);
  });
});

describe('DELETE /webhooks/{id}', () => {
  it('answers {id, deleted: true}, emits webhook.deleted, and then it is gone', async () => {
    const w = await createWebhook(t, { name: 'del', url: 'https://del.example.com', events: '*' });
    expectError(await t.live.delete(`${W()}/${w.id}`), 404, 'not_found_error', 'resource_not_found', undefined);
    expectError(await t.api.withKey(t.keys.pk_test).delete(`${W()}/${w.id}`), 403, 'authorization_error', 'publishable_key_write', undefined);
    expectError(await (await newTeam(tp)).api.delete(`${W()}/${w.id}`), 403, 'authorization_error', 'team_access_denied', undefined);
    const res = await t.api.delete(`${W()}/${w.id}`);
    expect(expectOk(res, 200)).toEqual({ id: w.id, deleted: true });
    const e = await log.waitFor((x) => x.requestId === res.body.meta.requestId, 'webhook.deleted');
    expect(e).toMatchObject({ type: 'webhook.deleted', data: { webhookId: w.id, webhook: { id: w.id, name: 'del', isActive: true } } });
    expectError(await t.api.get(`${W()}/${w.id}`), 404, 'not_found_error', 'resource_not_found', undefined);
    expectError(await t.api.delete(`${W()}/${w.id}`), 404, 'not_found_error', 'resource_not_found', undefined);
    // The same url and events can be subscribed again.
    await createWebhook(t, { name: 'del', url: 'https://del.example.com', events: '*' });
  });
});
