/** GET /search through the gateway: ranking, types and limit, partitions, internal notes, bad inputs (docs/adr/0034). */
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createCustomer, expectError, expectOk, ISO } from './helpdesk-helpers';

let tp: TestPlatform;
const S = () => `${tp.teamPath}/search`;
const search = (query: Record<string, string | number>, key = tp.team.sk_test) => tp.api.get(S(), { key, query });
const found = async (query: Record<string, string | number>, key?: string) => expectOk(await search(query, key), 200);
const scopedKey = async (scopes: string[]) => expectOk(await tp.api.post(`${tp.teamPath}/api-keys`, { scopes }, { key: tp.team.sk_test }), 201).key as string;

const ids: Record<string, string> = {};

beforeAll(async () => {
  tp = await startTestPlatform();
  const post = async (path: string, body: unknown, key = tp.team.sk_test) => expectOk(await tp.api.post(`${tp.teamPath}/${path}`, body, { key }), 201);
  ids.bodyTicket = (await post('tickets', { title: 'Cannot log in', messages: [{ sender: 'customer', content: 'My Zebrafax stopped working after the update' }] })).id;
  ids.titleTicket = (await post('tickets', { title: 'Zebrafax jam on floor 3' })).id;
  ids.exactTicket = (await post('tickets', { title: 'zebrafax' })).id;
  ids.noteTicket = (await post('tickets', { title: 'Refund request' })).id;
  expectOk(await tp.api.post(`${tp.teamPath}/tickets/${ids.noteTicket}/messages`, { content: 'Customer is on the quillwort watchlist', isInternal: true }), 201);
  ids.customer = (await createCustomer(tp, 'Zebrafax Admin', 'admin@zebrafax.example')).id;
  expectOk(await tp.api.patch(`${tp.teamPath}/customers/${ids.customer}`, { notes: 'quillwort: internal remark' }), 200);
  ids.titleArticle = (await post('articles', { title: 'Resetting a Zebrafax', content: 'Hold the button.' })).id;
  ids.bodyArticle = (await post('articles', { title: 'Printers', content: 'Most printers, a zebrafax included, need a restart.' })).id;
  // The other partition and the other team hold matches that must never show.
  await post('tickets', { title: 'Zebrafax live ticket' }, tp.team.sk_live);
  expectOk(await tp.api.post(`/teams/${tp.otherTeam.teamId}/tickets`, { title: 'Zebrafax elsewhere' }, { key: tp.otherTeam.sk_test }), 201);
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('GET /search', () => {
  it('ranks an exact title, then title matches, then body matches, across the three types; total counts them all', async () => {
    const data = await found({ q: 'Zebrafax' });
    expect(data.query).toBe('Zebrafax');
    expect(data.total).toBe(6);
    expect(data.results[0]).toEqual({
      type: 'tickets', id: ids.exactTicket, title: 'zebrafax', matchedIn: 'title', snippet: null, score: 3, createdAt: expect.stringMatching(ISO), updatedAt: expect.stringMatching(ISO),
    });
    const rest = data.results.slice(1);
    expect(rest.slice(0, 3).map((r: any) => [r.type, r.id, r.matchedIn, r.score])).toEqual(
      expect.arrayContaining([
        ['tickets', ids.titleTicket, 'title', 2],
        ['customers', ids.customer, 'title', 2],
        ['articles', ids.titleArticle, 'title', 2],
      ]),
    );
    expect(rest.slice(3).map((r: any) => [r.type, r.id, r.matchedIn, r.score])).toEqual(
      expect.arrayContaining([
        ['tickets', ids.bodyTicket, 'body', 1],
        ['articles', ids.bodyArticle, 'body', 1],
      ]),
    );
    expect(rest.slice(3).find((r: any) => r.id === ids.bodyArticle).snippet).toContain('a zebrafax included');
    // Among equal scores the most recently updated comes first.
    const titles = rest.slice(0, 3);
    expect([...titles].sort((a: any, b: any) => b.updatedAt.localeCompare(a.updatedAt))).toEqual(titles);
  });

  it('every word must match (any case); types narrows; limit caps the results but not total', async () => {
    expect((await found({ q: 'ZEBRAFAX floor' })).results.map((r: any) => r.id)).toEqual([ids.titleTicket]);
    const articles = await found({ q: 'zebrafax', types: 'articles' });
    expect(articles.results.map((r: any) => [r.type, r.id])).toEqual([['articles', ids.titleArticle], ['articles', ids.bodyArticle]]);
    const two = await found({ q: 'zebrafax', types: 'customers,tickets', limit: 2 });
    expect(two.results.map((r: any) => r.score)).toEqual([3, 2]);
    expect(two.total).toBe(4);
    expect(two.results[0].id).toBe(ids.exactTicket);
    expect(await found({ q: 'nothing-like-this' })).toEqual({ results: [], total: 0, query: 'nothing-like-this' });
  });

  it('never searches the other partition or another team', async () => {
    const live = await found({ q: 'zebrafax' }, tp.team.sk_live);
    expect(live.results.map((r: any) => [r.type, r.title])).toEqual([['tickets', 'Zebrafax live ticket']]);
    expect(live.total).toBe(1);
    const other = expectOk(await tp.api.get(`/teams/${tp.otherTeam.teamId}/search`, { key: tp.otherTeam.sk_test, query: { q: 'zebrafax' } }), 200);
    expect(other.results.map((r: any) => r.title)).toEqual(['Zebrafax elsewhere']);
  });

  it('internal notes are found only by keys with view_tickets; a key without it cannot select tickets at all', async () => {
    // The ticket's internal note is found; the customer's internal notes are never searched.
    const withNotes = await found({ q: 'quillwort' });
    expect(withNotes.results.map((r: any) => [r.type, r.id, r.matchedIn])).toEqual([['tickets', ids.noteTicket, 'body']]);
    expect(withNotes.results[0].snippet).toContain('quillwort watchlist');
    const noTickets = await scopedKey(['view_customers', 'view_articles']);
    expect(await found({ q: 'quillwort', types: 'customers,articles' }, noTickets)).toEqual({ results: [], total: 0, query: 'quillwort' });
    expectError(await search({ q: 'quillwort' }, noTickets), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await search({ q: 'quillwort', types: 'tickets' }, noTickets), 403, 'authorization_error', 'insufficient_permissions');
  });

  it('needs a secret key and the view permission of every selected type', async () => {
    expectError(await search({ q: 'zebrafax' }, tp.team.pk_test), 403, 'authorization_error', 'insufficient_permissions');
    const ticketsOnly = await scopedKey(['view_tickets']);
    expect((await found({ q: 'zebrafax', types: 'tickets' }, ticketsOnly)).total).toBe(3);
    const refused = await search({ q: 'zebrafax', types: 'tickets,articles' }, ticketsOnly);
    expectError(refused, 403, 'authorization_error', 'insufficient_permissions');
    expect(refused.body.error.message).toContain('view_articles');
    expectError(await tp.api.get(`/teams/${tp.otherTeam.teamId}/search`, { query: { q: 'x' } }), 403, 'authorization_error', 'team_access_denied');
  });

  it('bad inputs are 400s naming the parameter', async () => {
    expectError(await tp.api.get(S()), 400, 'invalid_request_error', 'parameter_missing', 'q');
    expectError(await search({ q: '   ' }), 400, 'invalid_request_error', 'parameter_invalid', 'q');
    expectError(await search({ q: 'x'.repeat(201) }), 400, 'invalid_request_error', 'parameter_invalid', 'q');
    expectError(await search({ q: 'x', limit: 51 }), 400, 'invalid_request_error', 'parameter_invalid', 'limit');
    expectError(await search({ q: 'x', limit: 0 }), 400, 'invalid_request_error', 'parameter_invalid', 'limit');
    expectError(await search({ q: 'x', limit: 'ten' }), 400, 'invalid_request_error', 'parameter_invalid', 'limit');
    expectError(await search({ q: 'x', types: 'tickets,posts' }), 400, 'invalid_request_error', 'parameter_invalid', 'types.1');
    expectError(await search({ q: 'x', types: '' }), 400, 'invalid_request_error', 'parameter_invalid', 'types.0');
    expectError(await search({ q: 'x', sort: 'new' }), 400, 'invalid_request_error', 'parameter_invalid', 'sort');
  });
});
