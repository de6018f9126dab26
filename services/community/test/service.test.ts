/** The service on its own (embedded MongoDB, memory bus), called as the gateway calls it: authors, defence in depth, a customers outage. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { scoped } from '@helpdesk/kit';
import { expectError, startServiceHarness, TEAM_A, TEAM_B, type ServiceHarness } from '@helpdesk/testing';
import { communityModels } from '../src/collections';
import { folderStorage, startCommunity, type AttachmentStorage, type CommunityRules } from '../src';

let h: ServiceHarness<CommunityRules>;
let dir: string;
let storage: AttachmentStorage;
let topicId: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'community-service-'));
  storage = folderStorage(dir);
  // No customers service: a write for a customer meets an unreachable one.
  h = await startServiceHarness((opts) => startCommunity({ ...opts, customersUrl: 'http://127.0.0.1:9', storage }), { observe: ['community.#'] });
  topicId = (await h.api('POST', '/teams/{team}/community/topics', { body: { name: 'General' } })).body.data.id;
}, 30_000);
afterAll(async () => {
  await h?.stop();
  await rm(dir, { recursive: true, force: true });
});

const posts = () => h.api('GET', '/teams/{team}/community/posts').then((r) => r.body.data as any[]);

describe('community service', () => {
  test('the author is the key\'s member, or the key itself while it has none', async () => {
    const byMember = await h.api('POST', '/teams/{team}/community/posts', { body: { title: 'One', topicId } });
    expect(byMember.body.data.author).toEqual({ type: 'member', id: 'mem_member000001' });
    const byKey = await h.api('POST', '/teams/{team}/community/posts', { as: { memberId: null }, body: { title: 'Two', topicId } });
    expect(byKey.status).toBe(201);
    expect(byKey.body.data.author).toEqual({ type: 'key', id: 'key_testkey0001' });
    const [e] = await h.eventsOf(byKey.requestId);
    expect(e).toMatchObject({ type: 'community.post.created', actor: { type: 'key', id: 'key_testkey0001' }, data: { post: { author: { type: 'key' } } } });
  });

  test('a customers outage is 503 for a write on a customer\'s behalf, and nothing is written', async () => {
    const before = (await posts()).length;
    const r = await h.api('POST', '/teams/{team}/community/posts', { body: { title: 'For a customer', topicId, customerId: 'cus_000000000000000000000001' } });
    expectError(r, 503, 'service_unavailable');
    expect(await h.eventsOf(r.requestId)).toEqual([]);
    expect((await posts()).length).toBe(before);
  });

  test('applies the publishable-key and permission rules itself (defence in depth)', async () => {
    expectError(await h.api('POST', '/teams/{team}/community/topics', { as: { keyType: 'publishable' }, body: { name: 'x' } }), 403, 'publishable_key_write');
    expectError(await h.api('GET', '/teams/{team}/community/topics', { as: { permissions: ['view_tickets'] } }), 403, 'insufficient_permissions');
    expect((await h.api('GET', '/teams/{team}/community/topics', { as: { keyType: 'publishable', permissions: ['view_community'] } })).status).toBe(200);
  });

  test('another team sees nothing of this one', async () => {
    const mine = await posts();
    expect(mine.length).toBeGreaterThan(0);
    const theirs = await h.api('GET', '/teams/{team}/community/posts', { as: { teamId: TEAM_B } });
    expect(theirs.body.data).toEqual([]);
    expectError(await h.api('GET', `/teams/{team}/community/posts/${mine[0].id}`, { as: { teamId: TEAM_B } }), 404, 'resource_not_found');
  });

  test('an upload no post listed within a day is removed, record and file, by a later upload of the same team and partition', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex').toString('base64');
    const upload = async (as = {}) => (await h.api('POST', '/teams/{team}/community/attachments', { as, body: { filename: 'a.png', content: png } })).body.data;
    const [stale, listed, fresh, otherTeam] = [await upload(), await upload(), await upload(), await upload({ teamId: TEAM_B })];
    expect((await h.api('POST', '/teams/{team}/community/posts', { body: { title: 'Keeps one', topicId, attachments: [listed] } })).status).toBe(201);
    // Two days old: the sweep's age, set directly on the stored records.
    const db = scoped(communityModels(h.svc.conn), { teamId: TEAM_A, mode: 'test' });
    const old = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    await db.attachments.updateMany({ _id: { $in: [stale.id, listed.id] } }, { $set: { createdAt: old } });
    await scoped(communityModels(h.svc.conn), { teamId: TEAM_B, mode: 'test' }).attachments.updateOne({ _id: otherTeam.id }, { $set: { createdAt: old } });
    await upload();
    expectError(await h.api('GET', `/teams/{team}/community/attachments/${stale.id}`), 404, 'resource_not_found');
    for (const kept of [listed, fresh]) expect((await h.api('GET', `/teams/{team}/community/attachments/${kept.id}`)).status).toBe(200);
    expect((await h.api('GET', `/teams/{team}/community/attachments/${otherTeam.id}`, { as: { teamId: TEAM_B } })).status).toBe(200);
    const stored = await storage.list('community/test/');
    expect(stored).not.toContain(stale.storage_path);
    expect(stored).toEqual(expect.arrayContaining([listed.storage_path, fresh.storage_path, otherTeam.storage_path]));
  });
});
