/** GET/POST/DELETE /tags through the gateway: counts across services, merge and delete through each service's rules (docs/adr/0034). */
import type { EventEnvelope } from '@helpdesk/contracts';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createCustomer, eventually, expectError, expectOk } from './helpdesk-helpers';

let tp: TestPlatform;
const T = () => `${tp.teamPath}/tags`;
const events: EventEnvelope<any>[] = [];
const scopedKey = async (scopes: string[]) => expectOk(await tp.api.post(`${tp.teamPath}/api-keys`, { scopes }), 201).key as string;
const ticket = async (tags: string[], key = tp.team.sk_test) => expectOk(await tp.api.post(`${tp.teamPath}/tickets`, { title: 'Tagged', tags }, { key }), 201).id as string;
const getTicket = async (id: string) => expectOk(await tp.api.get(`${tp.teamPath}/tickets/${id}`), 200);
const updatedEvents = (type: string, id: string) => events.filter((e) => e.type === type && (e.data.ticket ?? e.data.customer ?? e.data.article)?.id === id);

const ids: Record<string, string> = {};

beforeAll(async () => {
  tp = await startTestPlatform();
  // One observer on the shared exchange sees every service's events.
  await tp.observe('ticketing', ['ticket.updated', 'customer.updated', 'article.updated'], async (e) => {
    events.push(e as EventEnvelope<any>);
  });
  ids.t1 = await ticket(['billing', 'vip']);
  ids.t2 = await ticket(['billing']);
  ids.t3 = await ticket(['Billing', 'refund', 'billing-old']);
  ids.c1 = (await createCustomer(tp, 'Tag Person', 'tag@example.com')).id;
  expectOk(await tp.api.patch(`${tp.teamPath}/customers/${ids.c1}`, { tags: ['vip', 'billing'] }), 200);
  ids.a1 = expectOk(await tp.api.post(`${tp.teamPath}/articles`, { title: 'Invoices', tags: ['billing', 'howto'] }), 201).id;
  await ticket(['billing', 'live-only'], tp.team.sk_live);
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('tags', () => {
  it('GET /tags: rows per tag and entity, most used first; entity narrows; search is case-insensitive; the partition is the key\'s', async () => {
    const all = expectOk(await tp.api.get(T()), 200);
    expect(all.slice(0, 1)).toEqual([{ tag: 'billing', entity: 'tickets', count: 2 }]);
    expect(all).toEqual(
      expect.arrayContaining([
        { tag: 'billing', entity: 'customers', count: 1 },
        { tag: 'billing', entity: 'articles', count: 1 },
        { tag: 'vip', entity: 'tickets', count: 1 },
        { tag: 'vip', entity: 'customers', count: 1 },
        { tag: 'Billing', entity: 'tickets', count: 1 },
        { tag: 'howto', entity: 'articles', count: 1 },
      ]),
    );
    expect(all.map((r: any) => r.count)).toEqual([...all.map((r: any) => r.count)].sort((a, b) => b - a));
    expect(all.find((r: any) => r.tag === 'live-only')).toBeUndefined();
    expect(expectOk(await tp.api.get(T(), { query: { entity: 'articles' } }), 200)).toEqual([
      { tag: 'billing', entity: 'articles', count: 1 },
      { tag: 'howto', entity: 'articles', count: 1 },
    ]);
    const searched = expectOk(await tp.api.get(T(), { query: { entity: 'tickets', search: 'BILL' } }), 200);
    expect(searched).toEqual([
      { tag: 'billing', entity: 'tickets', count: 2 },
      { tag: 'Billing', entity: 'tickets', count: 1 },
      { tag: 'billing-old', entity: 'tickets', count: 1 },
    ]);
    const live = expectOk(await tp.api.get(T(), { key: tp.team.sk_live, query: { entity: 'tickets' } }), 200);
    expect(live).toEqual([{ tag: 'billing', entity: 'tickets', count: 1 }, { tag: 'live-only', entity: 'tickets', count: 1 }]);
  });

  it('POST /tags merges through each service: every record changed once, duplicates collapsed, each with its updated event', async () => {
    const res = expectOk(await tp.api.post(T(), { action: 'merge', fromTag: 'vip', toTag: 'billing' }), 200);
    expect(res).toEqual({ merged: 2, fromTag: 'vip', toTag: 'billing', entities: { tickets: 1, customers: 1, articles: 0 } });
    expect((await getTicket(ids.t1)).tags).toEqual(['billing']);
    expect(expectOk(await tp.api.get(`${tp.teamPath}/customers/${ids.c1}`), 200).tags).toEqual(['billing']);
    await eventually('the updated events', async () => (updatedEvents('ticket.updated', ids.t1).length && updatedEvents('customer.updated', ids.c1).length >= 2 ? true : null));
    const te = updatedEvents('ticket.updated', ids.t1);
    expect(te).toHaveLength(1);
    expect(te[0].data.changes).toEqual(['tags']);
    expect(te[0].data.previous).toEqual({ tags: ['billing', 'vip'] });
    // Sending it again (as after a 503 part-way, docs/adr/0034) touches only what still carries the tag: nothing here.
    expect(expectOk(await tp.api.post(T(), { action: 'merge', fromTag: 'vip', toTag: 'billing' }), 200)).toEqual({
      merged: 0, fromTag: 'vip', toTag: 'billing', entities: { tickets: 0, customers: 0, articles: 0 },
    });
    // A later write's event arrives after any the second request could have emitted: still one for t1.
    expectOk(await tp.api.patch(`${tp.teamPath}/tickets/${ids.t2}`, { priority: 'high' }), 200);
    await eventually('the marker event', async () => (updatedEvents('ticket.updated', ids.t2).length ? true : null));
    expect(updatedEvents('ticket.updated', ids.t1)).toHaveLength(1);
    // Another entity only: the key needs only that entity's manage permission.
    const ticketsOnly = await scopedKey(['manage_tickets', 'view_tickets']);
    expect(expectOk(await tp.api.post(T(), { action: 'merge', fromTag: 'refund', toTag: 'billing', entity: 'tickets' }, { key: ticketsOnly }), 200)).toEqual({
      merged: 1, fromTag: 'refund', toTag: 'billing', entities: { tickets: 1 },
    });
    expect((await getTicket(ids.t3)).tags).toEqual(['Billing', 'billing', 'billing-old']);
    expect(expectOk(await tp.api.post(T(), { action: 'merge', fromTag: 'nobody-has-it', toTag: 'x' }), 200).merged).toBe(0);
  });

  it('DELETE /tags removes a tag from every record through its rules; the other partition keeps it', async () => {
    const res = expectOk(await tp.api.delete(T(), { body: { tag: 'billing' } }), 200);
    expect(res).toEqual({ deleted: true, tag: 'billing', removedFrom: 5, entities: { tickets: 3, customers: 1, articles: 1 } });
    expect((await getTicket(ids.t3)).tags).toEqual(['Billing', 'billing-old']);
    expect(expectOk(await tp.api.get(`${tp.teamPath}/articles/${ids.a1}`), 200).tags).toEqual(['howto']);
    await eventually('the article event', async () => (updatedEvents('article.updated', ids.a1).length ? true : null));
    const live = expectOk(await tp.api.get(T(), { key: tp.team.sk_live, query: { entity: 'tickets', search: 'billing' } }), 200);
    expect(live).toEqual([{ tag: 'billing', entity: 'tickets', count: 1 }]);
  });

  it('permissions: view for GET, manage for writes, all three without entity; secret keys only', async () => {
    const viewTickets = await scopedKey(['view_tickets']);
    expectOk(await tp.api.get(T(), { key: viewTickets, query: { entity: 'tickets' } }), 200);
    expectError(await tp.api.get(T(), { key: viewTickets }), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await tp.api.post(T(), { action: 'merge', fromTag: 'a', toTag: 'b', entity: 'tickets' }, { key: viewTickets }), 403, 'authorization_error', 'insufficient_permissions');
    const manageTickets = await scopedKey(['manage_tickets']);
    expectError(await tp.api.delete(T(), { key: manageTickets, body: { tag: 'x' } }), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await tp.api.get(T(), { key: tp.team.pk_test }), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await tp.api.post(T(), { action: 'merge', fromTag: 'a', toTag: 'b' }, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    expectError(await tp.api.get(`/teams/${tp.otherTeam.teamId}/tags`), 403, 'authorization_error', 'team_access_denied');
  });

  it('bad inputs are 400s and change nothing', async () => {
    const before = (await getTicket(ids.t3)).tags;
    expectError(await tp.api.get(T(), { query: { entity: 'posts' } }), 400, 'invalid_request_error', 'parameter_invalid', 'entity');
    expectError(await tp.api.get(T(), { query: { limit: 1001 } }), 400, 'invalid_request_error', 'parameter_invalid', 'limit');
    expectError(await tp.api.get(T(), { query: { color: 'red' } }), 400, 'invalid_request_error', 'parameter_invalid', 'color');
    expectError(await tp.api.post(T(), { fromTag: 'a', toTag: 'b' }), 400, 'invalid_request_error', 'parameter_missing', 'action');
    expectError(await tp.api.post(T(), { action: 'split', fromTag: 'a', toTag: 'b' }), 400, 'invalid_request_error', 'parameter_invalid', 'action');
    expectError(await tp.api.post(T(), { action: 'merge', toTag: 'b' }), 400, 'invalid_request_error', 'parameter_missing', 'fromTag');
    expectError(await tp.api.post(T(), { action: 'merge', fromTag: 'Billing' }), 400, 'invalid_request_error', 'parameter_missing', 'toTag');
    expectError(await tp.api.post(T(), { action: 'merge', fromTag: 'Billing', toTag: 'Billing' }), 400, 'invalid_request_error', 'parameter_invalid', 'toTag');
    expectError(await tp.api.post(T(), { action: 'merge', fromTag: 'Billing', toTag: 7 }), 400, 'invalid_request_error', 'parameter_invalid', 'toTag');
    expectError(await tp.api.post(T(), { action: 'merge', fromTag: 'Billing', toTag: 'x'.repeat(51) }), 400, 'invalid_request_error', 'parameter_invalid', 'toTag');
    expectError(await tp.api.post(T(), { action: 'merge', fromTag: 'Billing', toTag: 'b', entity: 'posts' }), 400, 'invalid_request_error', 'parameter_invalid', 'entity');
    expectError(await tp.api.post(T(), { action: 'merge', fromTag: 'Billing', toTag: 'b', extra: 1 }), 400, 'invalid_request_error', 'parameter_invalid', 'extra');
    expectError(await tp.api.delete(T(), { body: {} }), 400, 'invalid_request_error', 'parameter_missing', 'tag');
    expectError(await tp.api.delete(T(), { body: { tag: '   ' } }), 400, 'invalid_request_error', 'parameter_invalid', 'tag');
    expect((await getTicket(ids.t3)).tags).toEqual(before);
  });
});
