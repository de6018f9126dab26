/**
 * GET /search looks words up in each record's search tokens (docs/adr/0034): whole words, any case,
 * accents and punctuation aside; every write that changes a searched field keeps them right; records
 * stored before tokens existed get theirs on the partition's first search.
 */
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createCustomer, eventually, expectOk } from './helpdesk-helpers';

let tp: TestPlatform;
const found = async (q: string, types?: string) =>
  expectOk(await tp.api.get(`${tp.teamPath}/search`, { query: { q, ...(types ? { types } : {}) } }), 200) as { results: { type: string; id: string; matchedIn: string }[]; total: number };
const idsOf = async (q: string, types?: string) => (await found(q, types)).results.map((r) => r.id);
const post = async (path: string, body: unknown) => expectOk(await tp.api.post(`${tp.teamPath}/${path}`, body), 201);

beforeAll(async () => {
  tp = await startTestPlatform();
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('GET /search: words', () => {
  it('matches whole words in any case, accents and punctuation aside; a part of a word is not a match', async () => {
    const t = await post('tickets', { title: 'Résumé upload fails (floor-3 kiosk)' });
    expect(await idsOf('resume', 'tickets')).toEqual([t.id]);
    expect(await idsOf('RÉSUMÉ FLOOR 3', 'tickets')).toEqual([t.id]);
    expect(await idsOf('kiosk,floor', 'tickets')).toEqual([t.id]);
    expect(await idsOf('kios', 'tickets')).toEqual([]);
    expect(await idsOf('floor 4', 'tickets')).toEqual([]);
    // An email's parts are words of a customer.
    const c = await createCustomer(tp, 'Wordy Person', 'wordy.person@tokens.example');
    expect(await idsOf('tokens.example', 'customers')).toEqual([c.id]);
    expect(await idsOf('wordy.person@tokens.example', 'customers')).toEqual([c.id]);
  });

  it('every write of a searched field keeps the words right: title, message, merge, customer name and email, article title and content', async () => {
    const t = await post('tickets', { title: 'Teapot leaking', messages: [{ sender: 'customer', content: 'It drips on the carpet' }] });
    expectOk(await tp.api.patch(`${tp.teamPath}/tickets/${t.id}`, { title: 'Kettle leaking' }), 200);
    expect(await idsOf('teapot', 'tickets')).toEqual([]);
    expect((await found('kettle', 'tickets')).results).toEqual([expect.objectContaining({ id: t.id, matchedIn: 'title' })]);
    expect((await found('carpet', 'tickets')).results).toEqual([expect.objectContaining({ id: t.id, matchedIn: 'body' })]);
    expectOk(await tp.api.post(`${tp.teamPath}/tickets/${t.id}/messages`, { content: 'Now the floorboards are warped' }), 201);
    expect(await idsOf('floorboards', 'tickets')).toEqual([t.id]);

    // A merge brings the source's messages (and their words) to the target.
    const source = await post('tickets', { title: 'Other report', messages: [{ sender: 'customer', content: 'Limescale everywhere' }] });
    expectOk(await tp.api.post(`${tp.teamPath}/tickets/${t.id}/merge`, { sourceTicketIds: [source.id] }), 200);
    expect(await idsOf('limescale', 'tickets')).toEqual(expect.arrayContaining([t.id]));

    // A customer's rename and new email; its tickets carry its new name (ticketing's projection follows customer.updated).
    const c = await createCustomer(tp, 'Old Name', 'old.address@tokens.example');
    const linked = await post('tickets', { title: 'Linked ticket', customerId: c.id });
    expectOk(await tp.api.patch(`${tp.teamPath}/customers/${c.id}`, { name: 'Marigold Finch', email: 'new.address@tokens.example' }), 200);
    expect(await idsOf('marigold', 'customers')).toEqual([c.id]);
    expect(await idsOf('old.address', 'customers')).toEqual([]);
    expect(await idsOf('new.address', 'customers')).toEqual([c.id]);
    await eventually('the linked ticket is found by its customer\'s new name', async () => (await idsOf('marigold', 'tickets')).join() === linked.id);
    expect(await idsOf('old', 'tickets')).not.toContain(linked.id);

    const a = await post('articles', { title: 'Descaling guide', content: 'Use vinegar.' });
    expect(await idsOf('vinegar', 'articles')).toEqual([a.id]);
    expectOk(await tp.api.patch(`${tp.teamPath}/articles/${a.id}`, { title: 'Cleaning guide', content: 'Use citric acid.' }), 200);
    expect(await idsOf('vinegar', 'articles')).toEqual([]);
    expect(await idsOf('descaling', 'articles')).toEqual([]);
    expect((await found('cleaning', 'articles')).results).toEqual([expect.objectContaining({ id: a.id, matchedIn: 'title' })]);
    // Every word in the title is a title match; some in the body only, a body match.
    expect((await found('citric cleaning', 'articles')).results).toEqual([expect.objectContaining({ id: a.id, matchedIn: 'body' })]);
  }, 60_000);

  it('records stored before search tokens existed are found, and keep their tokens after the first search', async () => {
    const t = await post('tickets', { title: 'Legacy quokka ticket' });
    const c = await createCustomer(tp, 'Legacy Quokka', 'legacy@quokka.example');
    const a = await post('articles', { title: 'Legacy quokka article', content: 'Old.' });
    const stores = [tp.platform.ticketing.conn.collection('tickets'), tp.platform.customers.conn.collection('customers'), tp.platform.knowledge.conn.collection('articles')];
    for (const coll of stores) await coll.updateMany({}, { $unset: { searchTokens: '', titleTokens: '' } });
    expect(await stores[0].countDocuments({ searchTokens: { $exists: true } })).toBe(0);

    const data = await found('quokka');
    expect(data.results.map((r) => r.id).sort()).toEqual([t.id, c.id, a.id].sort());
    expect(await stores[0].findOne({ _id: t.id as never })).toMatchObject({ searchTokens: ['legacy', 'quokka', 'ticket'], titleTokens: ['legacy', 'quokka', 'ticket'] });
    expect(await stores[1].findOne({ _id: c.id as never })).toMatchObject({ searchTokens: ['legacy', 'quokka', 'example'] });
    for (const coll of stores) expect(await coll.countDocuments({ searchTokens: { $exists: false } })).toBe(0);
  });
});
