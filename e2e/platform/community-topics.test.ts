import { startTestPlatform, type TestPlatform } from '../support/platform';
import { CommunityEvents, communityOf, TOPIC_KEYS, UUID } from './community-helpers';
import { expectError, expectOk, ISO } from './helpdesk-helpers';

let tp: TestPlatform;
let log: CommunityEvents;
let c: ReturnType<typeof communityOf>;

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await CommunityEvents.start(tp);
  c = communityOf(tp, await tp.createTeam());
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

const names = async (key = c.keys.sk_test) => expectOk(await c.get('/topics', key), 200).map((t: any) => t.name);

describe('community topics through the gateway', () => {
  it('creates a topic with its own field definitions, lists it (also to publishable keys) and emits community.topic.created', async () => {
    const res = await c.post('/topics', {
      name: 'Feature Requests',
      description: 'Ideas',
      customFieldConfig: [
        { name: 'Product area', type: 'select', required: true, options: ['billing', 'inbox'] },
        { name: 'Seats', type: 'number' },
      ],
    });
    const topic = expectOk(res, 201);
    expect(Object.keys(topic).sort()).toEqual(TOPIC_KEYS);
    expect(topic).toMatchObject({ name: 'Feature Requests', slug: 'feature-requests', description: 'Ideas', postCount: 0 });
    expect(topic.id).toMatch(UUID);
    expect(topic.createdAt).toMatch(ISO);
    expect(topic.customFieldConfig).toEqual([
      { fieldId: expect.stringMatching(UUID), name: 'Product area', type: 'select', required: true, options: ['billing', 'inbox'] },
      { fieldId: expect.stringMatching(UUID), name: 'Seats', type: 'number', required: false, options: [] },
    ]);
    const [e] = await log.waitForRequest(res.body.meta.requestId, 1);
    expect(e).toMatchObject({ type: 'community.topic.created', teamId: c.keys.teamId, mode: 'test', data: { topic } });
    expect(expectOk(await c.get('/topics'), 200)).toContainEqual(topic);
    expect(expectOk(await c.get('/topics', c.keys.pk_test), 200)).toContainEqual(topic);
    // the live partition and another team see none of it
    expect(await names(c.keys.sk_live)).toEqual([]);
    expect(expectOk(await tp.api.get(`/teams/${tp.otherTeam.teamId}/community/topics`, { key: tp.otherTeam.sk_test }), 200)).toEqual([]);
  });

  it.each([
    ['missing name', {}, 'parameter_missing', 'name'],
    ['name of the wrong type', { name: 5 }, 'parameter_invalid', 'name'],
    ['a blank name', { name: '  ' }, 'parameter_invalid', 'name'],
    ['an unknown field', { name: 'x', color: 'red' }, 'parameter_invalid', 'color'],
    ['a bad field type', { name: 'x', customFieldConfig: [{ name: 'f', type: 'colour' }] }, 'parameter_invalid', 'customFieldConfig.0.type'],
    ['a select without options', { name: 'x', customFieldConfig: [{ name: 'f', type: 'select' }] }, 'parameter_invalid', 'customFieldConfig.0.options'],
    ['options on a text field', { name: 'x', customFieldConfig: [{ name: 'f', type: 'text', options: ['a'] }] }, 'parameter_invalid', 'customFieldConfig.0.options'],
  ])('refuses %s: 400, nothing written, nothing emitted', async (_n, body, code, param) => {
    const before = await names();
    const res = await c.post('/topics', body);
    expectError(res, 400, 'invalid_request_error', code, param);
    await log.settle(tp);
    expect(log.ofRequest(res.body.error.request_id)).toEqual([]);
    expect(await names()).toEqual(before);
  });

  it('a second topic with the same slug is 409 param name', async () => {
    expectOk(await c.post('/topics', { name: 'How To' }), 201);
    expectError(await c.post('/topics', { name: 'how-to' }), 409, 'conflict_error', 'resource_conflict', 'name');
  });

  it('refuses publishable keys (publishable_key_write) and keys without manage_community', async () => {
    expectError(await c.post('/topics', { name: 'Nope' }, c.keys.pk_test), 403, 'authorization_error', 'publishable_key_write');
    const viewer = (await tp.platform.gateway.admin.createKey({ teamId: c.keys.teamId, type: 'secret', mode: 'test', scopes: ['view_community'] })).key;
    expectError(await c.post('/topics', { name: 'Nope' }, viewer), 403, 'authorization_error', 'insufficient_permissions');
    expectOk(await c.get('/topics', viewer), 200);
    const noView = (await tp.platform.gateway.admin.createKey({ teamId: c.keys.teamId, type: 'secret', mode: 'test', scopes: ['view_tickets'] })).key;
    expectError(await c.get('/topics', noView), 403, 'authorization_error', 'insufficient_permissions');
    expect(await names()).not.toContain('Nope');
  });

  it('PATCH renames (slug kept), replaces the field configuration and emits community.topic.updated', async () => {
    const t = await c.topic({ name: 'Bugs', customFieldConfig: [{ name: 'Browser', type: 'text' }] });
    const keep = t.customFieldConfig[0].fieldId;
    const res = await c.patch(`/topics/${t.id}`, {
      name: 'Bug reports',
      customFieldConfig: [{ fieldId: keep, name: 'Browser', type: 'text', required: true }, { name: 'Seen on', type: 'date' }],
    });
    const after = expectOk(res, 200);
    expect(after).toMatchObject({ id: t.id, name: 'Bug reports', slug: 'bugs' });
    expect(after.customFieldConfig.map((f: any) => [f.name, f.required])).toEqual([['Browser', true], ['Seen on', false]]);
    expect(after.customFieldConfig[0].fieldId).toBe(keep);
    const [e] = await log.waitForRequest(res.body.meta.requestId, 1);
    expect(e).toMatchObject({ type: 'community.topic.updated', data: { changes: ['name', 'customFieldConfig'], previous: { name: 'Bugs' } } });
    expectError(await c.patch(`/topics/${t.id}`, { slug: 'x' }), 400, 'invalid_request_error', 'parameter_invalid', 'slug');
    expectError(await c.patch(`/topics/${t.id}`, { name: 'x' }, c.keys.sk_live), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.patch(`/teams/${tp.otherTeam.teamId}/community/topics/${t.id}`, { name: 'x' }, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
    expectError(await c.patch('/topics/not-a-uuid', { name: 'x' }), 400, 'invalid_request_error', 'invalid_id_format', 'topicId');
  });

  it('DELETE refuses a topic with posts (409), deletes an empty one and emits community.topic.deleted', async () => {
    const t = await c.topic();
    const post = await c.postIn(t.id);
    expect(expectOk(await c.get('/topics'), 200).find((x: any) => x.id === t.id).postCount).toBe(1);
    expectError(await c.delete(`/topics/${t.id}`), 409, 'conflict_error', 'resource_conflict');
    expectOk(await c.delete(`/posts/${post.id}`), 200);
    expect(expectOk(await c.get('/topics'), 200).find((x: any) => x.id === t.id).postCount).toBe(0);
    const res = await c.delete(`/topics/${t.id}`);
    expect(expectOk(res, 200)).toEqual({ id: t.id, deleted: true });
    const [e] = await log.waitForRequest(res.body.meta.requestId, 1);
    expect(e).toMatchObject({ type: 'community.topic.deleted', data: { topic: { id: t.id } } });
    expectError(await c.delete(`/topics/${t.id}`), 404, 'not_found_error', 'resource_not_found');
    expectError(await c.delete(`/topics/${t.id}`, c.keys.pk_test), 403, 'authorization_error', 'publishable_key_write');
  });
});
