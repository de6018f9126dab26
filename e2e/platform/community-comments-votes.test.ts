import { startTestPlatform, type TestPlatform } from '../support/platform';
import { CommunityEvents, COMMENT_KEYS, communityOf, UUID } from './community-helpers';
import { createCustomer, expectError, expectOk, ISO } from './helpdesk-helpers';

let tp: TestPlatform;
let log: CommunityEvents;
let c: ReturnType<typeof communityOf>;
let topic: any;
let teamPath: string;

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await CommunityEvents.start(tp);
  c = communityOf(tp, await tp.createTeam());
  teamPath = `/teams/${c.keys.teamId}`;
  topic = await c.topic({ name: 'Questions' });
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

const post = async (id: string) => expectOk(await c.get(`/posts/${id}`), 200);

describe('community comments through the gateway', () => {
  it('adds comments (staff and customer authors), counts them, lists them oldest first and emits community.comment.created', async () => {
    const p = await c.postIn(topic.id);
    const res = await c.post(`/posts/${p.id}/comments`, { body: 'Have you tried turning it off?' });
    const first = expectOk(res, 201);
    expect(Object.keys(first).sort()).toEqual(COMMENT_KEYS);
    expect(first).toMatchObject({ post_id: p.id, body: 'Have you tried turning it off?', is_official_answer: false, attachments: [], author: { type: 'member' } });
    expect(first.id).toMatch(UUID);
    expect(first.created_at).toMatch(ISO);
    const [e] = await log.waitForRequest(res.body.meta.requestId, 1);
    expect(e).toMatchObject({ type: 'community.comment.created', data: { comment: first } });
    const customer = await createCustomer(tp, 'Cass', 'cass@example.com', c.keys.sk_test, teamPath);
    const second = expectOk(await c.post(`/posts/${p.id}/comments`, { body: 'Yes', customerId: customer.id }), 201);
    expect(second.author).toEqual({ type: 'customer', id: customer.id });
    expect((await post(p.id)).comment_count).toBe(2);
    const list = await c.get(`/posts/${p.id}/comments`);
    expect(expectOk(list, 200).map((x: any) => x.id)).toEqual([first.id, second.id]);
    expect(list.body.pagination).toEqual({ page: 1, pageSize: 20, total: 2, totalPages: 1, hasMore: false });
    // publishable keys read the comments of public posts
    expect(expectOk(await c.get(`/posts/${p.id}/comments`, c.keys.pk_test), 200)).toHaveLength(2);
  });

  it('a locked post refuses comments with 409 param is_locked; unlocking allows them again', async () => {
    const p = await c.postIn(topic.id);
    expectOk(await c.patch(`/posts/${p.id}`, { is_locked: true }), 200);
    const res = await c.post(`/posts/${p.id}/comments`, { body: 'Let me in' });
    expectError(res, 409, 'conflict_error', 'resource_conflict', 'is_locked');
    await log.settle(tp);
    expect(log.ofRequest(res.body.error.request_id)).toEqual([]);
    expect((await post(p.id)).comment_count).toBe(0);
    expect(expectOk(await c.get(`/posts/${p.id}/comments`), 200)).toEqual([]);
    expectOk(await c.patch(`/posts/${p.id}`, { is_locked: false }), 200);
    expectOk(await c.post(`/posts/${p.id}/comments`, { body: 'Let me in' }), 201);
  });

  it.each([
    ['missing body', {}, 'parameter_missing', 'body'],
    ['an empty body', { body: '  ' }, 'parameter_invalid', 'body'],
    ['body of the wrong type', { body: ['x'] }, 'parameter_invalid', 'body'],
    ['an unknown field', { body: 'x', is_official_answer: true }, 'parameter_invalid', 'is_official_answer'],
    ['more than 5 attachments', { body: 'x', attachments: Array.from({ length: 6 }, (_, i) => ({ storage_path: `p${i}` })) }, 'parameter_invalid', 'attachments'],
    ['an attachment that was never uploaded', { body: 'x', attachments: [{ storage_path: 'community/test/nope.png' }] }, 'parameter_invalid', 'attachments.0'],
  ])('refuses %s; nothing written', async (_n, body, code, param) => {
    const p = await c.postIn(topic.id);
    expectError(await c.post(`/posts/${p.id}/comments`, body), 400, 'invalid_request_error', code, param);
    expect((await post(p.id)).comment_count).toBe(0);
    expect(expectOk(await c.get(`/posts/${p.id}/comments`), 200)).toEqual([]);
  });

  it('comments of a members_only post, another team or the other partition are 404; publishable keys cannot comment', async () => {
    const hidden = await c.postIn(topic.id, { visibility: 'members_only' });
    expectError(await c.get(`/posts/${hidden.id}/comments`, c.keys.pk_test), 404, 'not_found_error', 'resource_not_found');
    expectError(await c.post(`/posts/${hidden.id}/comments`, { body: 'x' }, c.keys.pk_test), 403, 'authorization_error', 'publishable_key_write');
    expectError(await c.post(`/posts/${hidden.id}/comments`, { body: 'x' }, c.keys.sk_live), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.post(`/teams/${tp.otherTeam.teamId}/community/posts/${hidden.id}/comments`, { body: 'x' }, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
    expect((await post(hidden.id)).comment_count).toBe(0);
  });

  it('marking a staff comment as the official answer sets the post officially_answered; another answer replaces it; unmarking reopens', async () => {
    const p = await c.postIn(topic.id);
    const customer = await createCustomer(tp, 'Cid', 'cid@example.com', c.keys.sk_test, teamPath);
    const staff1 = expectOk(await c.post(`/posts/${p.id}/comments`, { body: 'Answer one' }), 201);
    const staff2 = expectOk(await c.post(`/posts/${p.id}/comments`, { body: 'Answer two' }), 201);
    const theirs = expectOk(await c.post(`/posts/${p.id}/comments`, { body: 'Me too', customerId: customer.id }), 201);
    expectError(await c.patch(`/posts/${p.id}/comments/${theirs.id}`, { is_official_answer: true }), 400, 'invalid_request_error', 'parameter_invalid', 'is_official_answer');
    expect((await post(p.id)).status).toBe('open');

    const res = await c.patch(`/posts/${p.id}/comments/${staff1.id}`, { is_official_answer: true });
    expect(expectOk(res, 200)).toMatchObject({ id: staff1.id, is_official_answer: true });
    const events = await log.waitForRequest(res.body.meta.requestId, 3);
    expect(events.map((e) => e.type)).toEqual(['community.comment.updated', 'community.post.updated', 'community.post.status_changed']);
    expect(events[2].data).toMatchObject({ from: 'open', to: 'officially_answered' });
    expect((await post(p.id)).status).toBe('officially_answered');

    expectOk(await c.patch(`/posts/${p.id}/comments/${staff2.id}`, { is_official_answer: true }), 200);
    const flags = expectOk(await c.get(`/posts/${p.id}/comments`), 200).map((x: any) => [x.id, x.is_official_answer]);
    expect(flags).toEqual([[staff1.id, false], [staff2.id, true], [theirs.id, false]]);

    expectOk(await c.patch(`/posts/${p.id}/comments/${staff2.id}`, { is_official_answer: false }), 200);
    expect((await post(p.id)).status).toBe('open');
    expectError(await c.patch(`/posts/${p.id}/comments/${staff2.id}`, {}), 400, 'invalid_request_error', 'parameter_missing', 'is_official_answer');
    expectError(await c.patch(`/posts/${p.id}/comments/${staff2.id}`, { is_official_answer: 'yes' }), 400, 'invalid_request_error', 'parameter_invalid', 'is_official_answer');
    expectError(await c.patch(`/posts/${p.id}/comments/${staff2.id}`, { is_official_answer: true }, c.keys.pk_test), 403, 'authorization_error', 'publishable_key_write');
    const other = await c.postIn(topic.id);
    expectError(await c.patch(`/posts/${other.id}/comments/${staff2.id}`, { is_official_answer: true }), 404, 'not_found_error', 'resource_not_found');
  });
});

describe('community votes through the gateway', () => {
  it('one vote per voter: voting twice changes nothing, unvoting removes it; events added and removed', async () => {
    const p = await c.postIn(topic.id);
    const res = await c.post(`/posts/${p.id}/votes`, {});
    expect(expectOk(res, 200)).toEqual({ post_id: p.id, voter: { type: 'member', id: expect.any(String) }, voted: true, vote_count: 1 });
    const [e] = await log.waitForRequest(res.body.meta.requestId, 1);
    expect(e).toMatchObject({ type: 'community.vote.added', data: { post_id: p.id, vote_count: 1 } });
    const again = await c.post(`/posts/${p.id}/votes`, {});
    expect(expectOk(again, 200)).toMatchObject({ voted: true, vote_count: 1 });
    const customer = await createCustomer(tp, 'Val', 'val@example.com', c.keys.sk_test, teamPath);
    expect(expectOk(await c.post(`/posts/${p.id}/votes`, { customerId: customer.id }), 200)).toMatchObject({ voter: { type: 'customer', id: customer.id }, vote_count: 2 });
    const removed = await c.delete(`/posts/${p.id}/votes`, c.keys.sk_test, { customerId: customer.id });
    expect(expectOk(removed, 200)).toMatchObject({ voted: false, vote_count: 1 });
    const [r] = await log.waitForRequest(removed.body.meta.requestId, 1);
    expect(r).toMatchObject({ type: 'community.vote.removed', data: { post_id: p.id, vote_count: 1, voter: { type: 'customer', id: customer.id } } });
    expect(expectOk(await c.delete(`/posts/${p.id}/votes`, c.keys.sk_test, { customerId: customer.id }), 200)).toMatchObject({ voted: false, vote_count: 1 });
    await log.settle(tp);
    expect(log.ofRequest(again.body.meta.requestId)).toEqual([]);
    expect((await post(p.id)).vote_count).toBe(1);
  });

  it('refuses bad voters, publishable keys, other teams and partitions; nothing counted', async () => {
    const p = await c.postIn(topic.id);
    expectError(await c.post(`/posts/${p.id}/votes`, { customerId: 5 }), 400, 'invalid_request_error', 'parameter_invalid', 'customerId');
    expectError(await c.post(`/posts/${p.id}/votes`, { weight: 2 }), 400, 'invalid_request_error', 'parameter_invalid', 'weight');
    expectError(await c.post(`/posts/${p.id}/votes`, { customerId: 'cus_000000000000000000000000' }), 404, 'not_found_error', 'resource_not_found', 'customerId');
    expectError(await c.post(`/posts/${p.id}/votes`, {}, c.keys.pk_test), 403, 'authorization_error', 'publishable_key_write');
    expectError(await c.delete(`/posts/${p.id}/votes`, c.keys.pk_test), 403, 'authorization_error', 'publishable_key_write');
    expectError(await c.post(`/posts/${p.id}/votes`, {}, c.keys.sk_live), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.post(`/teams/${tp.otherTeam.teamId}/community/posts/${p.id}/votes`, {}, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
    expect((await post(p.id)).vote_count).toBe(0);
  });

  it('vote_count is exact under 50 concurrent votes by 50 voters, and under 50 concurrent votes by one voter', async () => {
    const p = await c.postIn(topic.id);
    const customers = await Promise.all(Array.from({ length: 50 }, (_, i) => createCustomer(tp, `Voter ${i}`, `voter${i}@example.com`, c.keys.sk_test, teamPath)));
    const answers = await Promise.all(customers.map((cu) => c.post(`/posts/${p.id}/votes`, { customerId: cu.id })));
    for (const a of answers) expect(expectOk(a, 200).voted).toBe(true);
    expect(answers.map((a) => a.body.data.vote_count).sort((x, y) => x - y)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect((await post(p.id)).vote_count).toBe(50);

    const same = await Promise.all(Array.from({ length: 50 }, () => c.post(`/posts/${p.id}/votes`, {})));
    for (const a of same) expectOk(a, 200);
    expect((await post(p.id)).vote_count).toBe(51);

    const unvotes = await Promise.all(customers.map((cu) => c.delete(`/posts/${p.id}/votes`, c.keys.sk_test, { customerId: cu.id })));
    for (const a of unvotes) expect(expectOk(a, 200).voted).toBe(false);
    expect((await post(p.id)).vote_count).toBe(1);
  }, 60_000);

  it('comment_count is exact under 50 concurrent comments', async () => {
    const p = await c.postIn(topic.id);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => c.post(`/posts/${p.id}/comments`, { body: `comment ${i}` })));
    for (const a of answers) expectOk(a, 201);
    expect((await post(p.id)).comment_count).toBe(50);
    expect(expectOk(await c.get(`/posts/${p.id}/comments`, c.keys.sk_test, { pageSize: '100' }), 200)).toHaveLength(50);
  }, 60_000);
});
