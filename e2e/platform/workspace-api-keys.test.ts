import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { eventually } from '@helpdesk/testing';
import { expectError, expectOk, ISO } from './helpdesk-helpers';
import { addMember, WorkspaceEvents } from './workspace-helpers';

let tp: TestPlatform;
let log: WorkspaceEvents;
let team: TeamKeys;
const keys = () => `/teams/${team.teamId}/api-keys`;
const create = (body: unknown, key = team.sk_test) => tp.api.post(keys(), body, { key });
const list = async (key = team.sk_test, query?: Record<string, string>) => expectOk(await tp.api.get(keys(), { key, query }), 200);
const API_KEY_FIELDS = ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'memberId', 'mode', 'name', 'object', 'prefix', 'scopes', 'type'];

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await WorkspaceEvents.start(tp);
  team = await tp.createTeam('Keys Ltd');
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('API keys', () => {
  it('lists the partition\'s keys without the key itself', async () => {
    const test = await list();
    expect(test.map((k: any) => [k.type, k.mode])).toEqual([['secret', 'test'], ['publishable', 'test']]);
    for (const k of test) {
      expect(Object.keys(k).sort()).toEqual(API_KEY_FIELDS);
      expect(k.prefix).toMatch(/^(sk|pk)_test_[A-Za-z0-9]{4}$/);
      expect(k.createdAt).toMatch(ISO);
    }
    expect(JSON.stringify(test)).not.toContain(team.sk_test);
    expect((await list(team.sk_live)).map((k: any) => k.mode)).toEqual(['live', 'live']);
  });

  it('creates a key shown once, owned by the caller\'s member, usable at once; emits api_key.created', async () => {
    const res = await create({ name: 'CI', expiresInDays: 30 });
    const created = expectOk(res, 201);
    expect(created).toMatchObject({ object: 'api_key', type: 'secret', mode: 'test', name: 'CI', scopes: null, lastUsedAt: null });
    expect(created.key).toMatch(/^sk_test_[A-Za-z0-9]{40}$/);
    expect(created.key.startsWith(created.prefix)).toBe(true);
    expect(Date.parse(created.expiresAt) - Date.parse(created.createdAt)).toBeGreaterThan(29.9 * 86400e3);
    const [owner] = expectOk(await tp.api.get(`/teams/${team.teamId}/members`, { key: team.sk_test, query: { role: 'owner' } }), 200);
    expect(created.memberId).toBe(owner.id);
    expect(expectOk(await tp.api.get('/auth/whoami', { key: created.key }), 200).keyId).toBe(created.id);
    const [e] = await log.waitForRequest(res.body.meta.requestId);
    expect(e).toMatchObject({ type: 'api_key.created', mode: 'test', data: { apiKey: { id: created.id, prefix: created.prefix, revokedAt: null } } });
    expect(JSON.stringify(e)).not.toContain(created.key);
    const listed = (await list()).find((k: any) => k.id === created.id);
    const { key: _shownOnce, lastUsedAt: _unused, ...rest } = created;
    expect(listed).toEqual({ ...rest, lastUsedAt: expect.stringMatching(ISO) });
  });

  it('scopes narrow a key; a key cannot grant what it lacks; a test key cannot make a live key', async () => {
    const scoped = expectOk(await create({ scopes: ['view_tickets'] }), 201);
    expect(scoped.scopes).toEqual(['view_tickets']);
    expectError(await tp.api.post(`/teams/${team.teamId}/tickets`, { title: 'x' }, { key: scoped.key }), 403, 'authorization_error', 'insufficient_permissions');
    expect((await tp.api.get(`/teams/${team.teamId}/tickets`, { key: scoped.key })).status).toBe(200);
    // the scoped key cannot grant more, and what it makes without scopes is as narrow as itself
    expectError(await create({ scopes: ['manage_tickets'] }, scoped.key), 403, 'authorization_error', 'insufficient_permissions', 'scopes');
    expect(expectOk(await create({}, scoped.key), 201).scopes).toEqual(['view_tickets']);
    // an agent cannot grant manage_settings
    const agent = await addMember(tp, log, team, 'agent');
    expectError(await create({ scopes: ['manage_settings'] }, agent.key), 403, 'authorization_error', 'insufficient_permissions', 'scopes');
    expectError(await create({ mode: 'live' }), 403, 'authorization_error', 'insufficient_permissions', 'mode');
    const live = expectOk(await create({ mode: 'test' }, team.sk_live), 201);
    expect(live.mode).toBe('test');
    const pk = expectOk(await create({ type: 'publishable', scopes: ['view_articles'] }), 201);
    expect(pk.key).toMatch(/^pk_test_/);
  });

  it.each([
    ['a bad type', { type: 'restricted' }, 'parameter_invalid', 'type'],
    ['a bad mode', { mode: 'prod' }, 'parameter_invalid', 'mode'],
    ['an unknown scope', { scopes: ['fly'] }, 'parameter_invalid', 'scopes.0'],
    ['empty scopes', { scopes: [] }, 'parameter_invalid', 'scopes'],
    ['a publishable key with a staff scope', { type: 'publishable', scopes: ['view_tickets'] }, 'parameter_invalid', 'scopes'],
    ['an expiry in the past', { expiresAt: '2020-01-01T00:00:00Z' }, 'parameter_invalid', 'expiresAt'],
    ['a lifetime over two years', { expiresInDays: 731 }, 'parameter_invalid', 'expiresInDays'],
    ['both expiry forms', { expiresAt: '2099-01-01T00:00:00Z', expiresInDays: 3 }, 'parameter_invalid', 'expiresInDays'],
    ['a wrong type name', { name: 7 }, 'parameter_invalid', 'name'],
    ['an unknown field', { key: 'sk_test_mine' }, 'parameter_invalid', 'key'],
  ])('POST refuses %s; no key made', async (_n, body, code, param) => {
    const before = (await list()).length;
    expectError(await create(body), 400, 'invalid_request_error', code, param);
    expect((await list()).length).toBe(before);
  });

  it('refuses unknown query parameters on every key operation', async () => {
    expectError(await tp.api.get(keys(), { key: team.sk_test, query: { limit: 5 } }), 400, 'invalid_request_error', 'parameter_invalid', 'limit');
    expectError(await tp.api.get(keys(), { key: team.sk_test, query: { includeRevoked: 'yes' } }), 400, 'invalid_request_error', 'parameter_invalid', 'includeRevoked');
    expectError(await tp.api.post(keys(), {}, { key: team.sk_test, query: { dryRun: 'true' } }), 400, 'invalid_request_error', 'parameter_invalid', 'dryRun');
    const made = expectOk(await create({ name: 'kept' }), 201);
    expectError(await tp.api.delete(`${keys()}/${made.id}`, { key: team.sk_test, query: { force: 'true' } }), 400, 'invalid_request_error', 'parameter_invalid', 'force');
    expect((await list()).map((k: any) => k.id)).toContain(made.id);
    expectError(await tp.api.withKey(null).post('/invites/accept', { token: 'x', name: 'X' }, { query: { via: 'mail' } }), 400, 'invalid_request_error', 'parameter_invalid', 'via');
  });

  it('revokes: the key answers 401 invalid_api_key at once, leaves the list, emits api_key.revoked', async () => {
    const made = expectOk(await create({ name: 'to revoke' }), 201);
    const res = await tp.api.delete(`${keys()}/${made.id}`, { key: team.sk_test });
    expect(expectOk(res, 200)).toEqual({ id: made.id, deleted: true });
    expectError(await tp.api.get('/auth/whoami', { key: made.key }), 401, 'authentication_error', 'invalid_api_key');
    const [e] = await log.waitForRequest(res.body.meta.requestId);
    expect(e).toMatchObject({ type: 'api_key.revoked', data: { apiKey: { id: made.id, revokedAt: expect.stringMatching(ISO) } } });
    expect((await list()).map((k: any) => k.id)).not.toContain(made.id);
    expect((await list(team.sk_test, { includeRevoked: 'true' })).map((k: any) => k.id)).toContain(made.id);
    expectError(await tp.api.delete(`${keys()}/${made.id}`, { key: team.sk_test }), 404, 'not_found_error', 'resource_not_found');
  });

  it('members see and revoke their own keys; another member\'s needs manage_members; other partitions and teams are 404', async () => {
    const agent = await addMember(tp, log, team, 'agent');
    const agentKeys = await list(agent.key);
    expect(agentKeys.map((k: any) => k.memberId)).toEqual([agent.id]);
    const ownerKeyId = (await list()).find((k: any) => k.type === 'secret' && k.name === null)!.id;
    expectError(await tp.api.delete(`${keys()}/${ownerKeyId}`, { key: agent.key }), 403, 'authorization_error', 'insufficient_permissions');
    const liveKeyId = (await list(team.sk_live))[0].id;
    expectError(await tp.api.delete(`${keys()}/${liveKeyId}`, { key: team.sk_test }), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.delete(`/teams/${tp.otherTeam.teamId}/api-keys/${ownerKeyId}`, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.get(keys(), { key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
    expectError(await tp.api.get(keys(), { key: team.pk_test }), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await create({}, team.pk_test), 403, 'authorization_error', 'publishable_key_write');
    expectError(await tp.api.delete(`${keys()}/nope`, { key: team.sk_test }), 400, 'invalid_request_error', 'invalid_id_format', 'keyId');
    // the owner (manage_members) revokes the agent's key
    expect(expectOk(await tp.api.delete(`${keys()}/${agentKeys[0].id}`, { key: team.sk_test }), 200).deleted).toBe(true);
    await eventually('the agent key is refused', async () => (await tp.api.get('/auth/whoami', { key: agent.key })).status === 401, 8_000);
  });

  it('an Idempotency-Key replays the created key instead of making a second one', async () => {
    const a = await tp.api.post(keys(), { name: 'once' }, { key: team.sk_test, headers: { 'Idempotency-Key': 'make-once' } });
    const b = await tp.api.post(keys(), { name: 'once' }, { key: team.sk_test, headers: { 'Idempotency-Key': 'make-once' } });
    // the stored answer byte for byte (its body keeps the first request's id)
    expect(b.status).toBe(201);
    expect(b.body).toEqual(a.body);
    expect(expectOk(a, 201).key).toMatch(/^sk_test_/);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect((await list()).filter((k: any) => k.name === 'once')).toHaveLength(1);
  });
});
