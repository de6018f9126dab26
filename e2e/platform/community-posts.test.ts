import { startTestPlatform, type TestPlatform } from '../support/platform';
import { CommunityEvents, communityOf, POST_KEYS, UUID } from './community-helpers';
import { createCustomer, expectError, expectOk, ISO } from './helpdesk-helpers';

let tp: TestPlatform;
let log: CommunityEvents;
let c: ReturnType<typeof communityOf>;
let topic: any;
let area: string;
let seats: string;
let due: string;

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await CommunityEvents.start(tp);
  c = communityOf(tp, await tp.createTeam());
  topic = await c.topic({
    name: 'Ideas',
    customFieldConfig: [
      { name: 'Area', type: 'select', required: true, options: ['billing', 'inbox'] },
      { name: 'Seats', type: 'number' },
      { name: 'Due', type: 'date' },
    ],
  });
  [area, seats, due] = topic.customFieldConfig.map((f: any) => f.fieldId);
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

const ids = (res: any) => expectOk(res, 200).map((p: any) => p.id);
const postCount = async () => expectOk(await c.get('/topics'), 200).find((t: any) => t.id === topic.id).postCount;

describe('community posts through the gateway', () => {
  it('creates an open post (snake_case, slug from the title, the key\'s member as author) and emits community.post.created', async () => {
    const res = await c.post('/posts', { title: 'Dark mode, please!', topicId: topic.id, body: 'It hurts my eyes', customFields: { [area]: 'inbox', [seats]: 12 } });
    const post = expectOk(res, 201);
    expect(Object.keys(post).sort()).toEqual(POST_KEYS);
    expect(post).toMatchObject({
      title: 'Dark mode, please!',
      slug: 'dark-mode-please',
      body: 'It hurts my eyes',
      topic_id: topic.id,
      status: 'open',
      visibility: 'public',
      vote_count: 0,
      comment_count: 0,
      is_pinned: false,
      is_locked: false,
      custom_fields: { [area]: 'inbox', [seats]: 12 },
      attachments: [],
      author: { type: 'member', id: expect.stringMatching(/^mem_/) }, // the key's owner member
    });
    expect(post.id).toMatch(UUID);
    expect(post.created_at).toMatch(ISO);
    const [e] = await log.waitForRequest(res.body.meta.requestId, 1);
    expect(e).toMatchObject({ type: 'community.post.created', data: { post } });
    expect(expectOk(await c.get(`/posts/${post.id}`), 200)).toEqual(post);
    // the same title again gets the next free slug, within the team and partition only
    expect((await c.postIn(topic.id, { title: 'Dark mode, please!', customFields: { [area]: 'billing' } })).slug).toBe('dark-mode-please-2');
    const live = await c.topic({ name: 'Live ideas' }, c.keys.sk_live);
    expect((await c.postIn(live.id, { title: 'Dark mode, please!' }, c.keys.sk_live)).slug).toBe('dark-mode-please');
  });

  it('a secret key posts for a customer of the team: the customer is the author', async () => {
    const customer = await createCustomer(tp, 'Cleo', 'cleo@example.com', c.keys.sk_test, `/teams/${c.keys.teamId}`);
    const post = await c.postIn(topic.id, { customerId: customer.id, customFields: { [area]: 'billing' } });
    expect(post.author).toEqual({ type: 'customer', id: customer.id });
    // a customer of another team, or of the live partition, does not exist here
    const other = await createCustomer(tp, 'Otto', 'otto@example.com', tp.otherTeam.sk_test, `/teams/${tp.otherTeam.teamId}`);
    const before = await postCount();
    expectError(await c.post('/posts', { title: 'x', topicId: topic.id, customerId: other.id, customFields: { [area]: 'billing' } }), 404, 'not_found_error', 'resource_not_found', 'customerId');
    expectError(await c.post('/posts', { title: 'x', topicId: topic.id, customerId: 'nope' }), 400, 'invalid_request_error', 'parameter_invalid', 'customerId');
    expect(await postCount()).toBe(before);
  });

  it.each([
    ['missing title', () => ({ topicId: topic.id }), 400, 'parameter_missing', 'title'],
    ['missing topicId', () => ({ title: 'x' }), 400, 'parameter_missing', 'topicId'],
    ['title of the wrong type', () => ({ title: 7, topicId: topic.id }), 400, 'parameter_invalid', 'title'],
    ['a title over 255 characters', () => ({ title: 'x'.repeat(256), topicId: topic.id }), 400, 'parameter_invalid', 'title'],
    ['topicId not a uuid', () => ({ title: 'x', topicId: 'ideas' }), 400, 'parameter_invalid', 'topicId'],
    ['a bad visibility', () => ({ title: 'x', topicId: topic.id, visibility: 'private' }), 400, 'parameter_invalid', 'visibility'],
    ['an unknown field', () => ({ title: 'x', topicId: topic.id, is_pinned: true }), 400, 'parameter_invalid', 'is_pinned'],
    ['customFields not an object', () => ({ title: 'x', topicId: topic.id, customFields: [] }), 400, 'parameter_invalid', 'customFields'],
    ['a required field missing', () => ({ title: 'x', topicId: topic.id, customFields: { [seats]: 1 } }), 400, 'parameter_missing', () => `customFields.${area}`],
    ['a field not assigned to the topic', () => ({ title: 'x', topicId: topic.id, customFields: { [area]: 'inbox', other: 1 } }), 400, 'parameter_invalid', 'customFields.other'],
    ['a select value not among the options', () => ({ title: 'x', topicId: topic.id, customFields: { [area]: 'sales' } }), 400, 'parameter_invalid', () => `customFields.${area}`],
    ['a number field given text', () => ({ title: 'x', topicId: topic.id, customFields: { [area]: 'inbox', [seats]: 'ten' } }), 400, 'parameter_invalid', () => `customFields.${seats}`],
    ['a date field given no date', () => ({ title: 'x', topicId: topic.id, customFields: { [area]: 'inbox', [due]: '2026-02-30' } }), 400, 'parameter_invalid', () => `customFields.${due}`],
    ['more than 10 attachments', () => ({ title: 'x', topicId: topic.id, attachments: Array.from({ length: 11 }, (_, i) => ({ storage_path: `p${i}` })) }), 400, 'parameter_invalid', 'attachments'],
    ['an unknown topic', () => ({ title: 'x', topicId: '00000000-0000-4000-8000-000000000000' }), 404, 'resource_not_found', 'topicId'],
  ] as [string, () => unknown, number, string, string | (() => string)][])('refuses %s; nothing written, nothing emitted', async (_n, body, status, code, param) => {
    const before = await postCount();
    const res = await c.post('/posts', body());
    expectError(res, status, status === 404 ? 'not_found_error' : 'invalid_request_error', code, typeof param === 'function' ? param() : param);
    await log.settle(tp);
    expect(log.ofRequest(res.body.error.request_id)).toEqual([]);
    expect(await postCount()).toBe(before);
  });

  it('a topic of another team or of the other partition is a 404 (param topicId)', async () => {
    const theirs = expectOk(await tp.api.post(`/teams/${tp.otherTeam.teamId}/community/topics`, { name: 'Theirs' }, { key: tp.otherTeam.sk_test }), 201);
    expectError(await c.post('/posts', { title: 'x', topicId: theirs.id }), 404, 'not_found_error', 'resource_not_found', 'topicId');
    const live = await c.topic({ name: 'Live only' }, c.keys.sk_live);
    expectError(await c.post('/posts', { title: 'x', topicId: live.id }), 404, 'not_found_error', 'resource_not_found', 'topicId');
  });

  it('publishable keys read public posts only, never custom_fields, and write nothing', async () => {
    const open = await c.postIn(topic.id, { title: 'Public one', customFields: { [area]: 'inbox' } });
    const hidden = await c.postIn(topic.id, { title: 'Staff only', visibility: 'members_only', customFields: { [area]: 'inbox' } });
    const seen = expectOk(await c.get(`/posts/${open.id}`, c.keys.pk_test), 200);
    expect(seen).not.toHaveProperty('custom_fields');
    expect(Object.keys(seen).sort()).toEqual(POST_KEYS.filter((k) => k !== 'custom_fields'));
    expectError(await c.get(`/posts/${hidden.id}`, c.keys.pk_test), 404, 'not_found_error', 'resource_not_found');
    const listed = expectOk(await c.get('/posts', c.keys.pk_test, { pageSize: '100' }), 200);
    expect(listed.map((p: any) => p.id)).toContain(open.id);
    expect(listed.map((p: any) => p.id)).not.toContain(hidden.id);
    for (const p of listed) {
      expect(p.visibility).toBe('public');
      expect(p).not.toHaveProperty('custom_fields');
    }
    expect(ids(await c.get('/posts', c.keys.sk_test, { pageSize: '100' }))).toContain(hidden.id);
    expectError(await c.post('/posts', { title: 'x', topicId: topic.id }, c.keys.pk_test), 403, 'authorization_error', 'publishable_key_write');
    expectError(await c.patch(`/posts/${open.id}`, { is_pinned: true }, c.keys.pk_test), 403, 'authorization_error', 'publishable_key_write');
    expectError(await c.delete(`/posts/${open.id}`, c.keys.pk_test), 403, 'authorization_error', 'publishable_key_write');
  });

  it('lists with top-level pagination, filters by topic slug and status, sorts by votes and comments, pinned first', async () => {
    const t = await c.topic({ name: 'Sorting' });
    const a = await c.postIn(t.id, { title: 'A' });
    const b = await c.postIn(t.id, { title: 'B' });
    const d = await c.postIn(t.id, { title: 'D' });
    const voter = await createCustomer(tp, 'Vic', 'vic@example.com', c.keys.sk_test, `/teams/${c.keys.teamId}`);
    expectOk(await c.post(`/posts/${a.id}/votes`, {}), 200);
    expectOk(await c.post(`/posts/${a.id}/votes`, { customerId: voter.id }), 200);
    expectOk(await c.post(`/posts/${b.id}/votes`, {}), 200);
    expectOk(await c.post(`/posts/${b.id}/comments`, { body: 'one' }), 201);
    expectOk(await c.post(`/posts/${b.id}/comments`, { body: 'two' }), 201);
    expectOk(await c.patch(`/posts/${d.id}`, { status: 'planned' }), 200);
    const res = await c.get('/posts', c.keys.sk_test, { topic: t.slug });
    expect(ids(res)).toEqual([d.id, b.id, a.id]);
    expect(res.body.pagination).toEqual({ page: 1, pageSize: 20, total: 3, totalPages: 1, hasMore: false });
    expect(ids(await c.get('/posts', c.keys.sk_test, { topic: t.slug, sort: 'votes' }))).toEqual([a.id, b.id, d.id]);
    expect(ids(await c.get('/posts', c.keys.sk_test, { topic: t.slug, sort: 'comments' }))).toEqual([b.id, d.id, a.id]);
    expect(ids(await c.get('/posts', c.keys.sk_test, { topic: t.slug, status: 'planned' }))).toEqual([d.id]);
    expectOk(await c.patch(`/posts/${a.id}`, { is_pinned: true }), 200);
    expect(ids(await c.get('/posts', c.keys.sk_test, { topic: t.slug }))).toEqual([a.id, d.id, b.id]);
    const page2 = await c.get('/posts', c.keys.sk_test, { topic: t.slug, pageSize: '2', page: '2' });
    expect(ids(page2)).toEqual([b.id]);
    expect(page2.body.pagination).toEqual({ page: 2, pageSize: 2, total: 3, totalPages: 2, hasMore: false });
    expect(ids(await c.get('/posts', c.keys.sk_test, { topic: 'no-such-topic' }))).toEqual([]);
    expectError(await c.get('/posts', c.keys.sk_test, { sort: 'popular' }), 400, 'invalid_request_error', 'parameter_invalid', 'sort');
    expectError(await c.get('/posts', c.keys.sk_test, { status: 'closed' }), 400, 'invalid_request_error', 'parameter_invalid', 'status');
    expectError(await c.get('/posts', c.keys.sk_test, { pageSize: '101' }), 400, 'invalid_request_error', 'parameter_invalid', 'pageSize');
    expectError(await c.get('/posts', c.keys.sk_test, { colour: 'red' }), 400, 'invalid_request_error', 'parameter_invalid', 'colour');
    // the live partition lists none of the test posts
    expect(ids(await c.get('/posts', c.keys.sk_live, { topic: t.slug }))).toEqual([]);
  });

  it('a key without manage_community reads but writes nothing; one without view_community reads nothing', async () => {
    const p = await c.postIn(topic.id, { customFields: { [area]: 'inbox' } });
    const admin = tp.platform.gateway.admin;
    const viewer = (await admin.createKey({ teamId: c.keys.teamId, type: 'secret', mode: 'test', scopes: ['view_community'] })).key;
    const stranger = (await admin.createKey({ teamId: c.keys.teamId, type: 'secret', mode: 'test', scopes: ['view_tickets'] })).key;
    expect(expectOk(await c.get(`/posts/${p.id}`, viewer), 200).id).toBe(p.id);
    const writes = [
      () => c.post('/posts', { title: 'x', topicId: topic.id, customFields: { [area]: 'inbox' } }, viewer),
      () => c.patch(`/posts/${p.id}`, { is_pinned: true }, viewer),
      () => c.delete(`/posts/${p.id}`, viewer),
      () => c.post(`/posts/${p.id}/comments`, { body: 'x' }, viewer),
      () => c.post(`/posts/${p.id}/votes`, {}, viewer),
      () => c.post('/attachments', { filename: 'a.png', content: 'iVBORw0KGgo=' }, viewer),
    ];
    for (const write of writes) expectError(await write(), 403, 'authorization_error', 'insufficient_permissions');
    for (const path of ['/posts', `/posts/${p.id}`, `/posts/${p.id}/comments`, '/topics']) {
      expectError(await c.get(path, stranger), 403, 'authorization_error', 'insufficient_permissions');
    }
    expect(expectOk(await c.get(`/posts/${p.id}`), 200)).toMatchObject({ is_pinned: false, comment_count: 0, vote_count: 0 });
  });

  it('PATCH changes status (any of the seven; status_changed), pin, lock and merges customFields; a required field cannot be removed', async () => {
    const post = await c.postIn(topic.id, { customFields: { [area]: 'inbox', [seats]: 3 } });
    const res = await c.patch(`/posts/${post.id}`, { status: 'under_review', is_pinned: true, is_locked: true, customFields: { [seats]: null, [due]: '2027-01-31' } });
    const after = expectOk(res, 200);
    expect(after).toMatchObject({ status: 'under_review', is_pinned: true, is_locked: true, custom_fields: { [area]: 'inbox', [due]: '2027-01-31' } });
    expect(after.custom_fields).not.toHaveProperty(seats);
    expect(after.slug).toBe(post.slug);
    const events = await log.waitForRequest(res.body.meta.requestId, 2);
    expect(events.map((e) => e.type)).toEqual(['community.post.updated', 'community.post.status_changed']);
    expect(events[0].data).toMatchObject({ changes: ['status', 'is_pinned', 'is_locked', 'custom_fields'], previous: { status: 'open', is_pinned: false } });
    expect(events[1].data).toMatchObject({ from: 'open', to: 'under_review', post: { id: post.id } });
    for (const status of ['open', 'answered', 'officially_answered', 'planned', 'not_planned', 'completed', 'under_review']) {
      expect(expectOk(await c.patch(`/posts/${post.id}`, { status }), 200).status).toBe(status);
    }
    const refused: [unknown, string, string | (() => string)][] = [
      [{ customFields: { [area]: null } }, 'parameter_invalid', () => `customFields.${area}`],
      [{ customFields: { [area]: 'sales' } }, 'parameter_invalid', () => `customFields.${area}`],
      [{ customFields: { stranger: 1 } }, 'parameter_invalid', 'customFields.stranger'],
      [{ status: 'merged' }, 'parameter_invalid', 'status'],
      [{ is_pinned: 'yes' }, 'parameter_invalid', 'is_pinned'],
      [{ topicId: topic.id }, 'parameter_invalid', 'topicId'],
      [{ attachments: Array.from({ length: 11 }, () => ({ storage_path: 'x' })) }, 'parameter_invalid', 'attachments'],
    ];
    for (const [body, code, param] of refused) {
      const r = await c.patch(`/posts/${post.id}`, body);
      expectError(r, 400, 'invalid_request_error', code, typeof param === 'function' ? param() : param);
    }
    expect(expectOk(await c.get(`/posts/${post.id}`), 200).custom_fields).toEqual({ [area]: 'inbox', [due]: '2027-01-31' });
    expectError(await c.patch(`/posts/${post.id}`, { is_pinned: false }, c.keys.sk_live), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.patch(`/teams/${tp.otherTeam.teamId}/community/posts/${post.id}`, { is_pinned: false }, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
    expectError(await c.patch('/posts/not-a-uuid', { is_pinned: false }), 400, 'invalid_request_error', 'invalid_id_format', 'postId');
  });

  it('DELETE removes the post with its comments and votes, lowers postCount and emits community.post.deleted', async () => {
    const post = await c.postIn(topic.id, { customFields: { [area]: 'inbox' } });
    expectOk(await c.post(`/posts/${post.id}/comments`, { body: 'hi' }), 201);
    expectOk(await c.post(`/posts/${post.id}/votes`, {}), 200);
    const before = await postCount();
    const res = await c.delete(`/posts/${post.id}`);
    expect(expectOk(res, 200)).toEqual({ id: post.id, deleted: true });
    const [e] = await log.waitForRequest(res.body.meta.requestId, 1);
    expect(e).toMatchObject({ type: 'community.post.deleted', data: { post: { id: post.id } } });
    expect(await postCount()).toBe(before - 1);
    expectError(await c.get(`/posts/${post.id}`), 404, 'not_found_error', 'resource_not_found');
    expectError(await c.get(`/posts/${post.id}/comments`), 404, 'not_found_error', 'resource_not_found');
    expectError(await c.delete(`/posts/${post.id}`), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.delete(`/teams/${tp.otherTeam.teamId}/community/posts/${post.id}`, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
  });
});
