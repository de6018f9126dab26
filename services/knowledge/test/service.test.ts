/**
 * The knowledge service on its own (embedded MongoDB, memory bus): what the platform tests cannot
 * reach from outside — a redelivered ticket event, the internal operations, the permissions of keys
 * with fewer of them, and the view counter's batches.
 */
import { newId } from '@helpdesk/kit';
import { envelope, expectError, type Caller, messageFixture, startServiceHarness, TEAM_A, TEAM_B, ticketFixture, type ServiceHarness } from '@helpdesk/testing';
import { startKnowledge, type KnowledgeRules } from '../src';
import type { Partition } from '@helpdesk/contracts';

let h: ServiceHarness<KnowledgeRules>;
beforeAll(async () => {
  h = await startServiceHarness(startKnowledge, { observe: ['article.#', 'category.#'] });
}, 30_000);
afterAll(async () => {
  await h?.stop();
});

const A = '/teams/{team}/articles';
const article = async (body: Record<string, unknown> = {}, mode: Partition = 'test') => {
  const r = await h.api('POST', A, { body: { title: 'Cited article', ...body }, as: { mode } });
  if (r.status !== 201) throw new Error(`article: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.data;
};
const get = async (id: string, mode: Partition = 'test') => (await h.api('GET', `${A}/${id}`, { as: { mode } })).body.data;

describe('useCount from ticket events', () => {
  test('a redelivered ticket.message_added (same event id) counts once; ticket.created counts its initial replies', async () => {
    const a = await article();
    const t = ticketFixture(null);
    const reply = envelope('ticket.message_added', { ticket: t, message: messageFixture(t.id, `see [[article:${a.id}]]`, { sender: 'agent' }) }, { teamId: TEAM_A, id: newId('event') });
    await h.publish(reply);
    await h.publish(reply);
    expect((await get(a.id)).useCount).toBe(1);
    const messages = [messageFixture(t.id, `[[article:${a.id}]]`, { sender: 'ai' }), messageFixture(t.id, `[[article:${a.id}]]`)];
    await h.publish(envelope('ticket.created', { ticket: t, messages }, { teamId: TEAM_A }));
    expect((await get(a.id)).useCount).toBe(2);
    // no article event for a counter
    expect(h.events.filter((e) => e.data.article?.id === a.id).map((e) => e.type)).toEqual(['article.created']);
  });

  test('a citation in another team or partition touches nothing', async () => {
    const a = await article();
    const t = ticketFixture(null);
    const cite = messageFixture(t.id, `[[article:${a.id}]]`, { sender: 'agent' });
    await h.publish(envelope('ticket.message_added', { ticket: t, message: cite }, { teamId: TEAM_B }));
    await h.publish(envelope('ticket.message_added', { ticket: t, message: cite }, { teamId: TEAM_A, mode: 'live' }));
    expect((await get(a.id)).useCount).toBe(0);
  });
});

describe('internal operations', () => {
  test('GET /internal/articles/{id} answers the event snapshot; another partition 404', async () => {
    const a = await article({ status: 'published', metadata: { m: 1 } });
    const r = await h.api('GET', `/internal/articles/${a.id}`);
    expect(r.status).toBe(200);
    // The snapshot, without what the API's answer adds (the article's public visibility).
    const { publiclyVisible: _p, helpCenterVisible: _h, hiddenBecause: _b, ...stored } = a;
    expect(r.body.data).toEqual({ ...stored, revisionCount: 1, publishedAt: expect.any(String), rev: 1 });
    expectError(await h.api('GET', `/internal/articles/${a.id}`, { as: { mode: 'live' } }), 404, 'resource_not_found');
    expectError(await h.api('GET', `/internal/articles/${a.id}`, { as: { keyType: 'publishable', permissions: ['view_articles'] } }), 403, 'publishable_key_forbidden');
  });

  test('the help-center page needs view_articles and a well-formed base', async () => {
    const page = (q: string, as?: Caller) => h.api('GET', `/internal/help-center/page?${q}`, { as });
    const off = await page('base=/help/acme', { keyType: 'publishable', permissions: ['view_articles'] });
    expect(off.status).toBe(200);
    expect(off.body.data).toMatchObject({ status: 404, title: 'Not found' });
    expectError(await page('base=/help/acme', { keyType: 'publishable', permissions: [] }), 403, 'insufficient_permissions');
    expectError(await page('base=/elsewhere', { keyType: 'publishable', permissions: ['view_articles'] }), 400, 'parameter_invalid', 'base');
    expectError(await page('base=/help/acme&extra=1', { keyType: 'publishable', permissions: ['view_articles'] }), 400, 'parameter_invalid', 'extra');
  });
});

describe('permissions', () => {
  test('reads need view_articles; writes and the help-center switch need manage_articles; nothing is written', async () => {
    const viewer = { permissions: ['view_articles' as const] };
    const a = await article();
    expect((await h.api('GET', `${A}/${a.id}`, { as: viewer })).status).toBe(200);
    expectError(await h.api('GET', A, { as: { permissions: ['view_tickets'] } }), 403, 'insufficient_permissions');
    expectError(await h.api('GET', '/teams/{team}/categories', { as: { permissions: [] } }), 403, 'insufficient_permissions');
    expectError(await h.api('POST', A, { as: viewer, body: { title: 'x' } }), 403, 'insufficient_permissions');
    expectError(await h.api('PATCH', `${A}/${a.id}`, { as: viewer, body: { title: 'x' } }), 403, 'insufficient_permissions');
    expectError(await h.api('DELETE', `${A}/${a.id}`, { as: viewer }), 403, 'insufficient_permissions');
    expectError(await h.api('POST', '/teams/{team}/categories', { as: viewer, body: { name: 'x' } }), 403, 'insufficient_permissions');
    expectError(await h.api('PATCH', '/teams/{team}/help-center', { as: viewer, body: { enabled: true } }), 403, 'insufficient_permissions');
    expect(await get(a.id)).toEqual(a);
    expect((await h.api('GET', '/teams/{team}/help-center', { as: viewer })).body.data.enabled).toBe(false);
  });
});

describe('the view counter', () => {
  test('counts show at once and are stored by a flush exactly once', async () => {
    const a = await article({ status: 'published', isPublic: true });
    const pk = { keyType: 'publishable' as const, permissions: ['view_articles' as const] };
    for (let i = 0; i < 5; i++) expect((await h.api('GET', `${A}/${a.id}`, { as: pk })).body.data.viewCount).toBe(i + 1);
    const stored = () => h.svc.conn.collection('articles').findOne({ _id: a.id as any });
    await h.svc.rules.views.flush();
    expect((await stored())!.viewCount).toBe(5);
    expect((await get(a.id)).viewCount).toBe(5);
  });
});

describe('a category deleted while articles are being filed in it', () => {
  test('leaves no article in the deleted category: each is uncategorized by the delete or refused with 400', async () => {
    const c = await h.api('POST', '/teams/{team}/categories', { body: { name: 'Contended' } });
    const creates = Array.from({ length: 12 }, (_, i) => h.api('POST', A, { body: { title: `Filed ${i}`, categoryId: c.body.data.id } }));
    const del = h.api('DELETE', `/teams/{team}/categories/${c.body.data.id}`);
    const [deleted, ...created] = await Promise.all([del, ...creates]);
    expect(deleted.status).toBe(200);
    for (const r of created) {
      if (r.status === 201) expect((await get(r.body.data.id)).categoryId).toBeNull();
      else expectError(r, 400, 'parameter_invalid', 'categoryId');
    }
    const listed = await h.api('GET', `${A}?category=${c.body.data.id}`);
    expect(listed.body.data).toEqual([]);
  });
});
