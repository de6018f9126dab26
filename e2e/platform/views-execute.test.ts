/** GET /views/{viewId}/execute through the gateway: the entity's own list, filtered and sorted as the view says (docs/adr/0035). */
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { communityOf } from './community-helpers';
import { createCustomer, expectError, expectOk } from './helpdesk-helpers';

let tp: TestPlatform;
const view = async (body: Record<string, unknown>, key = tp.team.sk_test) => expectOk(await tp.api.post(`${tp.teamPath}/views`, body, { key }), 201).id as string;
const execute = (id: string, key = tp.team.sk_test, query?: Record<string, string | number>) => tp.api.get(`${tp.teamPath}/views/${id}/execute`, { key, query });
const rows = async (id: string, key?: string, query?: Record<string, string | number>) => {
  const res = await execute(id, key, query);
  expectOk(res, 200);
  return res.body;
};
const scopedKey = async (scopes: string[]) => expectOk(await tp.api.post(`${tp.teamPath}/api-keys`, { scopes }), 201).key as string;
const listed = async (path: string, query: Record<string, string>) => expectOk(await tp.api.get(`${tp.teamPath}/${path}`, { query: { pageSize: '100', ...query } }), 200);

beforeAll(async () => {
  tp = await startTestPlatform();
  for (const [title, priority] of [['Bravo', 'high'], ['Alpha', 'high'], ['Charlie', 'low'], ['Delta', 'high']]) {
    expectOk(await tp.api.post(`${tp.teamPath}/tickets`, { title, priority }), 201);
  }
  expectOk(await tp.api.post(`${tp.teamPath}/tickets`, { title: 'Echo live', priority: 'high' }, { key: tp.team.sk_live }), 201);
  await createCustomer(tp, 'Zed Acme', 'zed@acme.example');
  await createCustomer(tp, 'Amy Acme', 'amy@acme.example');
  await createCustomer(tp, 'Bob Other', 'bob@other.example');
  expectOk(await tp.api.post(`${tp.teamPath}/articles`, { title: 'Public one', isPublic: true, status: 'published' }), 201);
  expectOk(await tp.api.post(`${tp.teamPath}/articles`, { title: 'Draft one' }), 201);
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('GET /views/{viewId}/execute', () => {
  it('tickets: the list endpoint\'s items, filtered and sorted as the view says, with top-level pagination', async () => {
    const id = await view({ name: 'High by title', entityType: 'tickets', filters: { priority: 'high' }, sortField: 'title', sortDirection: 'asc' });
    const body = await rows(id);
    const expected = (await listed('tickets', { priority: 'high' })).sort((a: any, b: any) => a.title.localeCompare(b.title));
    expect(body.data).toEqual(expected);
    expect(body.data.map((t: any) => t.title)).toEqual(['Alpha', 'Bravo', 'Delta']);
    expect(body.pagination).toEqual({ page: 1, pageSize: 20, total: 3, totalPages: 1, hasMore: false });
    const second = await rows(id, undefined, { page: 2, pageSize: 2 });
    expect(second.data.map((t: any) => t.title)).toEqual(['Delta']);
    expect(second.pagination).toEqual({ page: 2, pageSize: 2, total: 3, totalPages: 2, hasMore: false });
    // The default order: created_at, newest first.
    const newest = await view({ name: 'All', entityType: 'tickets' });
    expect((await rows(newest)).data.map((t: any) => t.title)).toEqual(['Delta', 'Charlie', 'Alpha', 'Bravo']);
  });

  it('customers, articles and community posts run their own lists', async () => {
    const customers = await view({ name: 'Acme', entityType: 'customers', filters: { search: 'acme' }, sortField: 'name', sortDirection: 'asc' });
    const c = await rows(customers);
    expect(c.data.map((x: any) => x.name)).toEqual(['Amy Acme', 'Zed Acme']);
    expect(c.data).toEqual((await listed('customers', { search: 'acme' })).sort((a: any, b: any) => a.name.localeCompare(b.name)));
    const articles = await view({ name: 'Public', entityType: 'articles', filters: { isPublic: true } });
    const a = await rows(articles);
    expect(a.data).toEqual(await listed('articles', { isPublic: 'true' }));
    expect(a.data.map((x: any) => x.title)).toEqual(['Public one']);
    const community = communityOf(tp);
    const topic = await community.topic();
    await community.postIn(topic.id, { title: 'Second post' });
    await community.postIn(topic.id, { title: 'First post' });
    const posts = await view({ name: 'Posts', entityType: 'community_posts', filters: { topic: topic.slug }, sortField: 'title', sortDirection: 'asc' });
    const p = await rows(posts);
    expect(p.data.map((x: any) => x.title)).toEqual(['First post', 'Second post']);
    expect(p.pagination.total).toBe(2);
  });

  it('needs the entity\'s view permission; test keys see test data only; private views run for their creator', async () => {
    const tickets = await view({ name: 'Tickets', entityType: 'tickets' });
    const customersOnly = await scopedKey(['view_customers']);
    expectError(await execute(tickets, customersOnly), 403, 'authorization_error', 'insufficient_permissions');
    const viewTickets = await scopedKey(['view_tickets']);
    expect((await rows(tickets, viewTickets)).pagination.total).toBe(4);
    // A live key's own view runs over live data only; the test view does not exist for it.
    expectError(await execute(tickets, tp.team.sk_live), 404, 'not_found_error', 'resource_not_found');
    const live = await view({ name: 'Live tickets', entityType: 'tickets' }, tp.team.sk_live);
    expect((await rows(live, tp.team.sk_live)).data.map((t: any) => t.title)).toEqual(['Echo live']);
    // A private view runs for its creator (these keys share their member; other members get 404: views-crud).
    const mine = await view({ name: 'Mine', entityType: 'tickets', visibility: 'private' }, viewTickets);
    expect((await rows(mine, viewTickets)).pagination.total).toBe(4);
    expectError(await tp.api.get(`/teams/${tp.otherTeam.teamId}/views/${tickets}/execute`, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
    expectError(await execute(tickets, tp.team.pk_test), 403, 'authorization_error', 'publishable_key_forbidden');
  });

  it('bad inputs are 400s naming the parameter', async () => {
    const id = await view({ name: 'Any', entityType: 'tickets' });
    expectError(await execute(id, undefined, { page: 0 }), 400, 'invalid_request_error', 'parameter_invalid', 'page');
    expectError(await execute(id, undefined, { pageSize: 101 }), 400, 'invalid_request_error', 'parameter_invalid', 'pageSize');
    expectError(await execute(id, undefined, { pageSize: 'many' }), 400, 'invalid_request_error', 'parameter_invalid', 'pageSize');
    expectError(await execute(id, undefined, { status: 'open' }), 400, 'invalid_request_error', 'parameter_invalid', 'status');
    expectError(await execute('nope'), 400, 'invalid_request_error', 'invalid_id_format', 'viewId');
    expectError(await execute('view_AAAAAAAAAAAAAAAAAAAAAAAA'), 404, 'not_found_error', 'resource_not_found');
  });
});
