/**
 * POST /export when an owning service fails after the 200 is sent (docs/adr/0036): the JSON answer
 * still ends as a whole document, with `data.error` and cursors that continue where it stopped.
 * Its own platform: the test stops the knowledge service.
 */
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createCustomer, expectOk } from './helpdesk-helpers';

let tp: TestPlatform;

beforeAll(async () => {
  tp = await startTestPlatform();
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('POST /export: a failure mid-stream', () => {
  it('JSON ends with the error marker: the rows before it whole, the failed resource and those after it with a cursor each', async () => {
    const t = expectOk(await tp.api.post(`${tp.teamPath}/tickets`, { title: 'Exported before the failure' }), 201);
    const c = await createCustomer(tp, 'Exported Customer', 'exported.failure@example.com');
    expectOk(await tp.api.post(`${tp.teamPath}/articles`, { title: 'Never read', content: 'Body' }), 201);
    const whole = expectOk(await tp.api.post(`${tp.teamPath}/export`, {}), 200);
    expect(whole.error).toBeUndefined();

    // Tickets answer first (the 200 is sent), then the articles' owner is gone.
    await tp.platform.knowledge.stop();
    const res = await tp.api.post(`${tp.teamPath}/export`, { resources: ['tickets', 'articles', 'customers'] });
    const data = expectOk(res, 200);
    expect(data.tickets.map((x: any) => x.id)).toEqual([t.id]);
    expect(data.articles).toEqual([]);
    expect(data.customers).toEqual([]);
    expect(data.error).toEqual({ resource: 'articles', code: 'service_unavailable', message: expect.stringContaining('nextCursors') });
    expect(data.summary).toEqual({ tickets: 1, articles: 0, customers: 0 });
    expect(data.hasMore).toEqual({ tickets: false, articles: true, customers: true });
    expect(data.nextCursors).toEqual({ tickets: null, articles: expect.any(String), customers: expect.any(String) });

    // The customers' cursor starts that resource over (the articles' owner is still down).
    const rest = expectOk(await tp.api.post(`${tp.teamPath}/export`, { cursor: data.nextCursors.customers }), 200);
    expect(rest.customers.map((x: any) => x.id)).toContain(c.id);
    expect(rest.error).toBeUndefined();
    expect(rest.hasMore).toEqual({ customers: false });
  }, 60_000);
});
