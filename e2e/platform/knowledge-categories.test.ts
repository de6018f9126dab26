import { startTestPlatform, type TestPlatform } from '../support/platform';
import { ISO, expectError, expectOk } from './helpdesk-helpers';
import { CATEGORY_KEYS, KnowledgeEvents, UUID, createArticle, createCategory, expectRefusedWithoutEffect } from './knowledge-helpers';

let tp: TestPlatform;
let log: KnowledgeEvents;
const path = () => `${tp.teamPath}/categories`;
let n = 0;
const INVALID = ['invalid_request_error', 'parameter_invalid'] as const;

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await KnowledgeEvents.start(tp);
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('POST /categories through the gateway', () => {
  it('creates a category with a generated slug and the defaults, stores it and emits category.created', async () => {
    const res = await tp.api.post(path(), { name: 'Getting Started!' });
    const c = expectOk(res, 201);
    expect(Object.keys(c).sort()).toEqual(CATEGORY_KEYS);
    expect(c).toMatchObject({ object: 'category', name: 'Getting Started!', slug: 'getting-started', description: null, icon: 'folder', color: '#6b7280', sortOrder: 0, isPublic: false });
    expect(c.id).toMatch(UUID);
    expect(c.createdAt).toMatch(ISO);
    expect(expectOk(await tp.api.get(`${path()}/${c.id}`), 200)).toEqual(c);
    const [e] = await log.waitForRequest(res.body.meta.requestId, 1);
    expect(e).toMatchObject({ type: 'category.created', teamId: tp.team.teamId, mode: 'test', data: { category: c } });
  });

  it('takes a real Lucide icon, a hex colour (stored lowercase #rrggbb), a description, sortOrder and isPublic', async () => {
    const c = await createCategory(tp, { name: 'Payments', description: 'Cards and invoices', icon: 'credit-card', color: '#1A2B3C', sortOrder: -3, isPublic: true });
    expect(c).toMatchObject({ icon: 'credit-card', color: '#1a2b3c', description: 'Cards and invoices', sortOrder: -3, isPublic: true });
    expect((await createCategory(tp, { name: 'Launch', icon: 'rocket', color: '#AbC' })).color).toBe('#aabbcc');
  });

  it('a name whose slug exists in the team and partition is 409 resource_conflict; the live partition and another team have their own slugs', async () => {
    await createCategory(tp, { name: 'Returns' });
    await expectRefusedWithoutEffect(tp, log, () => tp.api.post(path(), { name: 'RETURNS' }), 409, 'conflict_error', 'resource_conflict', 'name');
    await expectRefusedWithoutEffect(tp, log, () => tp.api.post(path(), { name: 'returns!!' }), 409, 'conflict_error', 'resource_conflict', 'name');
    expect((await createCategory(tp, { name: 'Returns' }, tp.team.sk_live)).slug).toBe('returns');
    expect((await createCategory(tp, { name: 'Returns' }, tp.otherTeam.sk_test, `/teams/${tp.otherTeam.teamId}`)).slug).toBe('returns');
  });

  const bad: [string, unknown, string, string][] = [
    ['missing name', { icon: 'rocket' }, 'parameter_missing', 'name'],
    ['blank name', { name: ' ' }, 'parameter_invalid', 'name'],
    ['name wrong type', { name: 7 }, 'parameter_invalid', 'name'],
    ['unknown icon', { name: `C${++n}`, icon: 'not-a-lucide-icon' }, 'parameter_invalid', 'icon'],
    ['icon wrong type', { name: `C${++n}`, icon: 3 }, 'parameter_invalid', 'icon'],
    ['colour not hex', { name: `C${++n}`, color: 'blue' }, 'parameter_invalid', 'color'],
    ['colour too short', { name: `C${++n}`, color: '#12' }, 'parameter_invalid', 'color'],
    ['sortOrder not an integer', { name: `C${++n}`, sortOrder: 1.5 }, 'parameter_invalid', 'sortOrder'],
    ['sortOrder out of range', { name: `C${++n}`, sortOrder: 10_000_000 }, 'parameter_invalid', 'sortOrder'],
    ['isPublic not a boolean', { name: `C${++n}`, isPublic: 'true' }, 'parameter_invalid', 'isPublic'],
    ['description wrong type', { name: `C${++n}`, description: 5 }, 'parameter_invalid', 'description'],
    ['slug is generated, not sent', { name: `C${++n}`, slug: 'mine' }, 'parameter_invalid', 'slug'],
    ['unknown field', { name: `C${++n}`, emoji: 'x' }, 'parameter_invalid', 'emoji'],
  ];
  it.each(bad)('refuses %s with 400, writes nothing, emits nothing', async (_name, body, code, param) => {
    await expectRefusedWithoutEffect(tp, log, () => tp.api.post(path(), body), 400, 'invalid_request_error', code, param);
  });

  it('keys: publishable 403 publishable_key_write; another team 403 team_access_denied; nothing written', async () => {
    await expectRefusedWithoutEffect(tp, log, () => tp.api.post(path(), { name: 'P' }, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    await expectRefusedWithoutEffect(tp, log, () => tp.api.post(path(), { name: 'O' }, { key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
  });
});

describe('GET /categories through the gateway', () => {
  it('orders by sortOrder then name, filters isPublic, paginates with total, page, pageSize and hasMore', async () => {
    const t = await tp.createTeam();
    const teamPath = `/teams/${t.teamId}`;
    for (const [name, sortOrder, isPublic] of [['Zeta', 0, true], ['Alpha', 0, false], ['Last', 5, true], ['First', -1, false]] as const) {
      await createCategory(tp, { name, sortOrder, isPublic }, t.sk_test, teamPath);
    }
    const names = async (query: Record<string, string | number | boolean>, key = t.sk_test) =>
      expectOk(await tp.api.get(`${teamPath}/categories`, { key, query }), 200).map((c: any) => c.name);
    expect(await names({})).toEqual(['First', 'Alpha', 'Zeta', 'Last']);
    expect(await names({ isPublic: true })).toEqual(['Zeta', 'Last']);
    expect(await names({ isPublic: false })).toEqual(['First', 'Alpha']);
    const page = await tp.api.get(`${teamPath}/categories`, { key: t.sk_test, query: { pageSize: 3 } });
    expect(page.body.meta.pagination).toEqual({ page: 1, pageSize: 3, total: 4, totalPages: 2, hasMore: true });
    expect(await names({ pageSize: 3, page: 2 })).toEqual(['Last']);
    // publishable keys see the public ones only, whatever they ask for
    expect(await names({}, t.pk_test)).toEqual(['Zeta', 'Last']);
    expect(await names({ isPublic: false }, t.pk_test)).toEqual([]);
    // the live partition has none of them
    expect(await names({}, t.sk_live)).toEqual([]);
  });

  it.each([
    ['isPublic not a boolean', { isPublic: 'maybe' }, 'isPublic'],
    ['page 0', { page: 0 }, 'page'],
    ['unknown parameter', { sort: 'name' }, 'sort'],
  ])('refuses %s with 400 naming it', async (_name, query, param) => {
    expectError(await tp.api.get(path(), { query }), 400, ...INVALID, param);
  });

  it('a private category is 404 for publishable keys, a public one is shown; other partition and team 404/403', async () => {
    const priv = await createCategory(tp, { name: 'Internal only' });
    const pub = await createCategory(tp, { name: 'Public FAQ', isPublic: true });
    expectError(await tp.api.get(`${path()}/${priv.id}`, { key: tp.team.pk_test }), 404, 'not_found_error', 'resource_not_found');
    expect(expectOk(await tp.api.get(`${path()}/${pub.id}`, { key: tp.team.pk_test }), 200)).toEqual(pub);
    expectError(await tp.api.get(`${path()}/${pub.id}`, { key: tp.team.sk_live }), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.get(`${path()}/${pub.id}`, { key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
    expectError(await tp.api.get(`${path()}/nope`), 400, 'invalid_request_error', 'invalid_id_format', 'categoryId');
  });
});

describe('PATCH and DELETE /categories/{id} through the gateway', () => {
  it('PATCH changes given fields, a rename regenerates the slug, category.updated carries changes and previous', async () => {
    const c = await createCategory(tp, { name: 'Old name', icon: 'rocket' });
    const res = await tp.api.patch(`${path()}/${c.id}`, { name: 'New Name', icon: 'book-open', color: '#00FF00', sortOrder: 2, isPublic: true, description: 'd' });
    const d = expectOk(res, 200);
    expect(d).toMatchObject({ name: 'New Name', slug: 'new-name', icon: 'book-open', color: '#00ff00', sortOrder: 2, isPublic: true, description: 'd' });
    const [e] = await log.waitForRequest(res.body.meta.requestId, 1);
    expect(e).toMatchObject({ type: 'category.updated', data: { category: d, changes: ['name', 'slug', 'description', 'icon', 'color', 'sortOrder', 'isPublic'], previous: { name: 'Old name', slug: 'old-name', icon: 'rocket' } } });
    expect(expectOk(await tp.api.get(`${path()}/${c.id}`), 200)).toEqual(d);
    // description null clears it
    expect(expectOk(await tp.api.patch(`${path()}/${c.id}`, { description: null }), 200).description).toBeNull();
  });

  it('a rename onto another category\'s slug is 409; bad input is 400; publishable and other partition refused; nothing changes', async () => {
    await createCategory(tp, { name: 'Taken Name' });
    const c = await createCategory(tp, { name: 'Mine' });
    const at = `${path()}/${c.id}`;
    await expectRefusedWithoutEffect(tp, log, () => tp.api.patch(at, { name: 'taken name' }), 409, 'conflict_error', 'resource_conflict', 'name');
    for (const [body, param] of [[{ icon: 'nope-nope' }, 'icon'], [{ color: '#ggg' }, 'color'], [{ name: null }, 'name'], [{ sortOrder: 'first' }, 'sortOrder'], [{ slug: 'x' }, 'slug']] as const) {
      await expectRefusedWithoutEffect(tp, log, () => tp.api.patch(at, body), 400, ...INVALID, param);
    }
    await expectRefusedWithoutEffect(tp, log, () => tp.api.patch(at, { name: 'P' }, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    await expectRefusedWithoutEffect(tp, log, () => tp.api.patch(at, { name: 'L' }, { key: tp.team.sk_live }), 404, 'not_found_error', 'resource_not_found');
    expect(expectOk(await tp.api.get(at), 200)).toEqual(c);
  });

  it('DELETE uncategorizes its articles in the same transaction, each emitting article.updated, then category.deleted', async () => {
    const c = await createCategory(tp, { name: 'Doomed', isPublic: true });
    const a1 = await createArticle(tp, { title: 'In it 1', categoryId: c.id });
    const a2 = await createArticle(tp, { title: 'In it 2', categoryId: c.id, status: 'published' });
    const other = await createArticle(tp, { title: 'Elsewhere' });
    const res = await tp.api.delete(`${path()}/${c.id}`);
    expect(expectOk(res, 200)).toEqual({ id: c.id, deleted: true });
    const events = await log.waitForRequest(res.body.meta.requestId, 3);
    expect(events.map((e) => e.type).sort()).toEqual(['article.updated', 'article.updated', 'category.deleted']);
    expect(events.filter((e) => e.type === 'article.updated').map((e) => [e.data.article.id, e.data.changes, e.data.previous, e.data.article.categoryId]).sort()).toEqual(
      [[a1.id, ['categoryId'], { categoryId: c.id }, null], [a2.id, ['categoryId'], { categoryId: c.id }, null]].sort(),
    );
    expect(events.find((e) => e.type === 'category.deleted')!.data).toMatchObject({ categoryId: c.id, articlesUncategorized: 2, category: { id: c.id } });
    for (const a of [a1, a2]) expect(expectOk(await tp.api.get(`${tp.teamPath}/articles/${a.id}`), 200).categoryId).toBeNull();
    expect(expectOk(await tp.api.get(`${tp.teamPath}/articles/${other.id}`), 200)).toEqual(other);
    expectError(await tp.api.get(`${path()}/${c.id}`), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.delete(`${path()}/${c.id}`), 404, 'not_found_error', 'resource_not_found');
    // its slug is free again
    await createCategory(tp, { name: 'Doomed' });
  });

  it('DELETE refuses publishable keys, another team and the other partition; nothing is deleted', async () => {
    const c = await createCategory(tp, { name: 'Survivor' });
    await expectRefusedWithoutEffect(tp, log, () => tp.api.delete(`${path()}/${c.id}`, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    await expectRefusedWithoutEffect(tp, log, () => tp.api.delete(`${path()}/${c.id}`, { key: tp.team.sk_live }), 404, 'not_found_error', 'resource_not_found');
    await expectRefusedWithoutEffect(tp, log, () => tp.api.delete(`${path()}/${c.id}`, { key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
    expect(expectOk(await tp.api.get(`${path()}/${c.id}`), 200)).toEqual(c);
  });
});
