import { startTestPlatform, type TestPlatform } from '../support/platform';
import { ISO, expectError, expectOk } from './helpdesk-helpers';
import { ARTICLE_KEYS, ART_ID, KnowledgeEvents, createArticle, createCategory, expectRefusedWithoutEffect } from './knowledge-helpers';

let tp: TestPlatform;
let log: KnowledgeEvents;
const path = () => `${tp.teamPath}/articles`;
let n = 0;
const title = () => `Article ${++n}`;
const INVALID = ['invalid_request_error', 'parameter_invalid'] as const;

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await KnowledgeEvents.start(tp);
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('POST /articles through the gateway', () => {
  it('creates a draft with the defaults, answers the spec\'s Article, stores it and emits article.created only', async () => {
    const res = await tp.api.post(path(), { title: 'How to reset a password', content: '# Reset\n\nClick **Forgot**.' });
    const a = expectOk(res, 201);
    expect(Object.keys(a).sort()).toEqual(ARTICLE_KEYS);
    expect(a).toMatchObject({ title: 'How to reset a password', content: '# Reset\n\nClick **Forgot**.', categoryId: null, status: 'draft', isPublic: false, tags: [], metadata: {}, viewCount: 0, useCount: 0 });
    // Why nobody outside the team sees it yet.
    expect(a).toMatchObject({ publiclyVisible: false, helpCenterVisible: false, hiddenBecause: ['draft', 'not_public', 'help_center_off'] });
    expect(a.id).toMatch(ART_ID);
    expect(a.createdAt).toMatch(ISO);
    expect(expectOk(await tp.api.get(`${path()}/${a.id}`), 200)).toEqual(a);
    const events = await log.waitForRequest(res.body.meta.requestId, 1);
    await log.settle();
    expect(log.ofRequest(res.body.meta.requestId).map((e) => e.type)).toEqual(['article.created']);
    // The event's snapshot is the stored article (its visibility is the API's reading of it, not part of it).
    const { publiclyVisible: _p, helpCenterVisible: _h, hiddenBecause: _b, ...stored } = a;
    expect(events[0]).toMatchObject({ teamId: tp.team.teamId, mode: 'test', data: { article: { ...stored, revisionCount: 0, publishedAt: null, rev: 1 } } });
    expect(events[0].data.article).not.toHaveProperty('publiclyVisible');
    // a draft keeps no revision
    expect(expectOk(await tp.api.get(`${path()}/${a.id}/revisions`), 200)).toEqual([]);
  });

  it('created published in a category, with tags and metadata: article.created then article.published, revision 1 kept', async () => {
    const cat = await createCategory(tp, { name: 'Billing' });
    const res = await tp.api.post(path(), { title: 'Invoices', content: 'Where to find them', categoryId: cat.id, status: 'published', isPublic: true, tags: ['billing', 'billing', ' faq '], metadata: { owner: 'ana', level: 2 } });
    const a = expectOk(res, 201);
    expect(a).toMatchObject({ categoryId: cat.id, status: 'published', isPublic: true, tags: ['billing', 'faq'], metadata: { owner: 'ana', level: 2 } });
    const events = await log.waitForRequest(res.body.meta.requestId, 2);
    expect(events.map((e) => e.type)).toEqual(['article.created', 'article.published']);
    expect(events[1].data).toMatchObject({ revision: 1, article: { id: a.id, status: 'published', revisionCount: 1 } });
    const revisions = expectOk(await tp.api.get(`${path()}/${a.id}/revisions`), 200);
    expect(revisions).toEqual([
      { object: 'article_revision', articleId: a.id, revision: 1, title: 'Invoices', content: 'Where to find them', categoryId: cat.id, isPublic: true, tags: ['billing', 'faq'], publishedAt: expect.stringMatching(ISO), publishedBy: events[1].actor },
    ]);
  });

  it('categoryId must be a category of the same team and partition: 400 param categoryId, nothing written', async () => {
    const otherTeamCat = await createCategory(tp, { name: 'Theirs' }, tp.otherTeam.sk_test, `/teams/${tp.otherTeam.teamId}`);
    const liveCat = await createCategory(tp, { name: 'Live only' }, tp.team.sk_live);
    for (const categoryId of [otherTeamCat.id, liveCat.id, '6f1c8a52-3b1e-4f6a-9d2c-0a1b2c3d4e5f']) {
      await expectRefusedWithoutEffect(tp, log, () => tp.api.post(path(), { title: title(), categoryId }), 400, ...INVALID, 'categoryId');
    }
  });

  const bad: [string, unknown, string, string][] = [
    ['missing title', { content: 'x' }, 'parameter_missing', 'title'],
    ['blank title', { title: '   ' }, 'parameter_invalid', 'title'],
    ['title over 255 characters', { title: 'x'.repeat(256) }, 'parameter_invalid', 'title'],
    ['title wrong type', { title: 42 }, 'parameter_invalid', 'title'],
    ['content wrong type', { title: 'A', content: ['x'] }, 'parameter_invalid', 'content'],
    ['status not an article status', { title: 'A', status: 'archived' }, 'parameter_invalid', 'status'],
    ['isPublic not a boolean', { title: 'A', isPublic: 'yes' }, 'parameter_invalid', 'isPublic'],
    ['categoryId not a UUID', { title: 'A', categoryId: 'billing' }, 'parameter_invalid', 'categoryId'],
    ['tags not strings', { title: 'A', tags: [1] }, 'parameter_invalid', 'tags.0'],
    ['metadata over 50 keys', { title: 'A', metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }, 'parameter_invalid', 'metadata'],
    ['metadata not an object', { title: 'A', metadata: 'x' }, 'parameter_invalid', 'metadata'],
    ['viewCount is read-only', { title: 'A', viewCount: 5 }, 'parameter_invalid', 'viewCount'],
    ['customFields naming no defined field', { title: 'A', customFields: { a: 1 } }, 'parameter_invalid', 'customFields.a'],
    ['unknown field', { title: 'A', colour: 'red' }, 'parameter_invalid', 'colour'],
  ];
  it.each(bad)('refuses %s with 400, writes nothing, emits nothing', async (_name, body, code, param) => {
    await expectRefusedWithoutEffect(tp, log, () => tp.api.post(path(), body), 400, 'invalid_request_error', code, param);
  });

  it('exactly 50 metadata keys is accepted', async () => {
    const a = await createArticle(tp, { title: title(), metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i])) });
    expect(Object.keys(a.metadata)).toHaveLength(50);
  });

  it('keys: publishable 403 publishable_key_write; another team 403 team_access_denied; nothing written', async () => {
    await expectRefusedWithoutEffect(tp, log, () => tp.api.post(path(), { title: 'P' }, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    await expectRefusedWithoutEffect(tp, log, () => tp.api.post(path(), { title: 'O' }, { key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
  });
});

describe('GET /articles through the gateway', () => {
  let team: { path: string; key: string };
  const list = async (query: Record<string, string | number | boolean> = {}) => tp.api.get(`${team.path}/articles`, { key: team.key, query });
  const titles = async (query: Record<string, string | number | boolean> = {}) => expectOk(await list(query), 200).map((a: any) => a.title);
  let cat: any;

  beforeAll(async () => {
    // A team of its own, so the other tests' articles do not show.
    const t = await tp.createTeam();
    team = { path: `/teams/${t.teamId}`, key: t.sk_test };
    cat = await createCategory(tp, { name: 'Shipping' }, team.key, team.path);
    for (const [t2, body] of [
      ['Alpha', { content: 'About refunds', categoryId: cat.id, status: 'published', isPublic: true }],
      ['Beta', { content: 'Nothing here', status: 'published' }],
      ['Gamma REFUNDS', { content: 'x', categoryId: cat.id }],
    ] as const) {
      await createArticle(tp, { title: t2, ...body }, team.key, team.path);
    }
  });

  it('lists newest first with pagination in meta', async () => {
    const res = await list({ pageSize: 2 });
    expect(expectOk(res, 200).map((a: any) => a.title)).toEqual(['Gamma REFUNDS', 'Beta']);
    expect(res.body.meta.pagination).toEqual({ page: 1, pageSize: 2, total: 3, totalPages: 2, hasMore: true });
    expect(await titles({ page: 2, pageSize: 2 })).toEqual(['Alpha']);
  });

  it('filters by category, status, isPublic, and search over title and content (case-insensitive)', async () => {
    expect(await titles({ category: cat.id })).toEqual(['Gamma REFUNDS', 'Alpha']);
    expect(await titles({ status: 'published' })).toEqual(['Beta', 'Alpha']);
    expect(await titles({ status: 'draft' })).toEqual(['Gamma REFUNDS']);
    expect(await titles({ isPublic: true })).toEqual(['Alpha']);
    expect(await titles({ isPublic: false })).toEqual(['Gamma REFUNDS', 'Beta']);
    expect(await titles({ search: 'refund' })).toEqual(['Gamma REFUNDS', 'Alpha']);
    expect(await titles({ search: 'refund', status: 'published' })).toEqual(['Alpha']);
    expect(await titles({ search: '.*' })).toEqual([]);
  });

  it.each([
    ['category not a UUID', { category: 'shipping' }, 'category'],
    ['status not an article status', { status: 'archived' }, 'status'],
    ['isPublic not a boolean', { isPublic: 'yes' }, 'isPublic'],
    ['pageSize over 100', { pageSize: 101 }, 'pageSize'],
    ['unknown parameter', { sort: 'title' }, 'sort'],
  ])('refuses %s with 400 naming it', async (_name, query, param) => {
    expectError(await list(query), 400, ...INVALID, param);
  });

  it('the other partition and the other team see none of them', async () => {
    expect(expectOk(await tp.api.get(path(), { key: tp.team.sk_live }), 200).map((a: any) => a.title)).not.toContain('Alpha');
    expectError(await tp.api.get(`${team.path}/articles`), 403, 'authorization_error', 'team_access_denied');
  });
});

describe('GET, PATCH, DELETE /articles/{id} through the gateway', () => {
  it('PATCH changes only given fields: tags replace, metadata merges (null removes), article.updated with changes and previous', async () => {
    const a = await createArticle(tp, { title: title(), tags: ['a', 'b'], metadata: { keep: 1, drop: 2 } });
    const res = await tp.api.patch(`${path()}/${a.id}`, { tags: ['c'], metadata: { drop: null, add: 'x' } });
    const b = expectOk(res, 200);
    expect(b).toMatchObject({ title: a.title, tags: ['c'], metadata: { keep: 1, add: 'x' }, status: 'draft' });
    expect(b.updatedAt >= a.updatedAt).toBe(true);
    const [e] = await log.waitForRequest(res.body.meta.requestId, 1);
    expect(e).toMatchObject({ type: 'article.updated', data: { changes: ['tags', 'metadata'], previous: { tags: ['a', 'b'], metadata: { keep: 1, drop: 2 } }, article: { rev: 2 } } });
    expect(expectOk(await tp.api.get(`${path()}/${a.id}`), 200)).toEqual(b);
  });

  it('publishing keeps a revision per publication and per title/content edit while published; drafts and other edits keep none', async () => {
    const a = await createArticle(tp, { title: 'v1 title', content: 'v1' });
    const publish = await tp.api.patch(`${path()}/${a.id}`, { status: 'published' });
    expectOk(publish, 200);
    expect((await log.waitForRequest(publish.body.meta.requestId, 2)).map((e) => e.type)).toEqual(['article.updated', 'article.published']);
    expectOk(await tp.api.patch(`${path()}/${a.id}`, { tags: ['only-tags'] }), 200);
    const edit = await tp.api.patch(`${path()}/${a.id}`, { content: 'v2' });
    expect((await log.waitForRequest(edit.body.meta.requestId, 2)).map((e) => [e.type, e.data.revision])).toEqual([['article.updated', undefined], ['article.published', 2]]);
    expectOk(await tp.api.patch(`${path()}/${a.id}`, { status: 'draft' }), 200);
    expectOk(await tp.api.patch(`${path()}/${a.id}`, { content: 'draft edit' }), 200);
    const revs = expectOk(await tp.api.get(`${path()}/${a.id}/revisions`), 200);
    expect(revs.map((r: any) => [r.revision, r.title, r.content])).toEqual([[2, 'v1 title', 'v2'], [1, 'v1 title', 'v1']]);
    const page = await tp.api.get(`${path()}/${a.id}/revisions`, { query: { pageSize: 1, page: 2 } });
    expect(expectOk(page, 200).map((r: any) => r.revision)).toEqual([1]);
    expect(page.body.meta.pagination).toEqual({ page: 2, pageSize: 1, total: 2, totalPages: 2, hasMore: false });
  });

  it('a PATCH that changes nothing answers the article and emits nothing', async () => {
    const a = await createArticle(tp, { title: 'Same' });
    const res = await tp.api.patch(`${path()}/${a.id}`, { title: 'Same' });
    expect(expectOk(res, 200)).toEqual(a);
    await log.settle();
    expect(log.ofRequest(res.body.meta.requestId)).toEqual([]);
  });

  it('PATCH refuses bad input with 400 and changes nothing', async () => {
    const a = await createArticle(tp, { title: title(), metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i])) });
    const cases: [unknown, string, string][] = [
      [{ status: 'archived' }, 'parameter_invalid', 'status'],
      [{ title: null }, 'parameter_invalid', 'title'],
      [{ isPublic: 1 }, 'parameter_invalid', 'isPublic'],
      [{ metadata: { one_more: true } }, 'parameter_invalid', 'metadata'],
      [{ categoryId: '6f1c8a52-3b1e-4f6a-9d2c-0a1b2c3d4e5f' }, 'parameter_invalid', 'categoryId'],
      [{ useCount: 3 }, 'parameter_invalid', 'useCount'],
    ];
    for (const [body, code, param] of cases) {
      await expectRefusedWithoutEffect(tp, log, () => tp.api.patch(`${path()}/${a.id}`, body), 400, 'invalid_request_error', code, param);
    }
    expect(expectOk(await tp.api.get(`${path()}/${a.id}`), 200)).toEqual(a);
    // null removes a key, so the merged result is back within 50
    expect(Object.keys(expectOk(await tp.api.patch(`${path()}/${a.id}`, { metadata: { k0: null, fresh: 1 } }), 200).metadata)).toHaveLength(50);
  });

  it('DELETE answers {id, deleted: true}, emits article.deleted, and the article and its revisions are gone', async () => {
    const a = await createArticle(tp, { title: title(), status: 'published' });
    const res = await tp.api.delete(`${path()}/${a.id}`);
    expect(expectOk(res, 200)).toEqual({ id: a.id, deleted: true });
    const [e] = await log.waitForRequest(res.body.meta.requestId, 1);
    expect(e).toMatchObject({ type: 'article.deleted', data: { articleId: a.id, article: { id: a.id } } });
    expectError(await tp.api.get(`${path()}/${a.id}`), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.get(`${path()}/${a.id}/revisions`), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.delete(`${path()}/${a.id}`), 404, 'not_found_error', 'resource_not_found');
  });

  it('another team, the other partition and an unknown id are 404 / 403; nothing changes', async () => {
    const a = await createArticle(tp, { title: title() });
    for (const key of [tp.team.sk_live]) {
      expectError(await tp.api.get(`${path()}/${a.id}`, { key }), 404, 'not_found_error', 'resource_not_found');
      await expectRefusedWithoutEffect(tp, log, () => tp.api.patch(`${path()}/${a.id}`, { title: 'x' }, { key }), 404, 'not_found_error', 'resource_not_found');
      await expectRefusedWithoutEffect(tp, log, () => tp.api.delete(`${path()}/${a.id}`, { key }), 404, 'not_found_error', 'resource_not_found');
    }
    const theirs = `/teams/${tp.otherTeam.teamId}/articles/${a.id}`;
    expectError(await tp.api.get(theirs, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.get(`${path()}/${a.id}`, { key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
    expectError(await tp.api.get(`${path()}/art_doesnotexist00000000000`), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.get(`${path()}/not-an-id`), 400, 'invalid_request_error', 'invalid_id_format', 'articleId');
    await expectRefusedWithoutEffect(tp, log, () => tp.api.delete(`${path()}/${a.id}`, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    await expectRefusedWithoutEffect(tp, log, () => tp.api.patch(`${path()}/${a.id}`, { title: 'p' }, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    expect(expectOk(await tp.api.get(`${path()}/${a.id}`), 200)).toEqual(a);
  });
});

describe('useCount: ticket replies that cite an article', () => {
  it('counts each public agent reply citing the article once, by reference or help-center link; not customers, notes, or repeats', async () => {
    const a = await createArticle(tp, { title: 'Cited', status: 'published', isPublic: true });
    const b = await createArticle(tp, { title: 'Also cited' });
    const ticket = expectOk(
      await tp.api.post(`${tp.teamPath}/tickets`, {
        title: 'Help',
        messages: [
          { content: `See [[article:${a.id}]] and again [[article:${a.id}]]`, sender: 'agent' },
          { content: `[[article:${b.id}]]`, sender: 'customer' },
        ],
      }),
      201,
    );
    const msgs = `${tp.teamPath}/tickets/${ticket.id}/messages`;
    expectOk(await tp.api.post(msgs, { content: `Read https://help.example.com/help/acme/articles/${a.id}-cited please`, sender: 'agent' }), 201);
    expectOk(await tp.api.post(msgs, { content: `internal: [[article:${b.id}]]`, sender: 'agent', isInternal: true }), 201);
    expectOk(await tp.api.post(msgs, { content: `Try [[article:${b.id}]]`, sender: 'agent' }), 201);
    expectOk(await tp.api.post(msgs, { content: `[[article:${b.id}]]`, sender: 'customer' }), 201);
    const counted = await eventuallyUses(a.id, 2);
    expect(counted).toBe(2);
    expect(await eventuallyUses(b.id, 1)).toBe(1);
    // the live partition's article with the same reference text is untouched (ids are per partition anyway)
    const live = await createArticle(tp, { title: 'Live' }, tp.team.sk_live);
    expectOk(await tp.api.post(msgs, { content: `[[article:${live.id}]]`, sender: 'agent' }), 201);
    await eventuallyUses(a.id, 2);
    expect(expectOk(await tp.api.get(`${path()}/${live.id}`, { key: tp.team.sk_live }), 200).useCount).toBe(0);
  });

  async function eventuallyUses(id: string, atLeast: number): Promise<number> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const uses = expectOk(await tp.api.get(`${path()}/${id}`), 200).useCount as number;
      if (uses >= atLeast || Date.now() > deadline) return uses;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
});
