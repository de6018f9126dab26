/** POST /export (streamed JSON and CSV) and GET /export/incremental through the gateway (docs/adr/0036). */
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createCustomer, eventually, expectError, expectOk, ISO } from './helpdesk-helpers';
import { addMember, WorkspaceEvents } from './workspace-helpers';

let tp: TestPlatform;
const E = () => `${tp.teamPath}/export`;
const INC = () => `${tp.teamPath}/export/incremental`;
const ticket = async (body: Record<string, unknown>, key?: string) => expectOk(await tp.api.post(`${tp.teamPath}/tickets`, body, key ? { key } : {}), 201);
const settle = () => new Promise((r) => setTimeout(r, 1_100)); // the incremental export leaves the last second for the next call

beforeAll(async () => {
  tp = await startTestPlatform();
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('POST /export', () => {
  let t1: any, t2: any, c1: any, art: any;
  beforeAll(async () => {
    t1 = await ticket({ title: 'Export one', priority: 'high', tags: ['a', 'b'], metadata: { k: 'v' } });
    t2 = await ticket({ title: '=HYPERLINK("http://evil")', priority: 'low', notes: 'line1\nline2, "quoted"' });
    await ticket({ title: 'Live only' }, tp.team.sk_live);
    c1 = await createCustomer(tp, 'Exported Person', 'exported@example.com');
    art = expectOk(await tp.api.post(`${tp.teamPath}/articles`, { title: 'Exported article', content: 'Body' }), 201);
  });

  it('JSON: one array per resource (default all three), summary, hasMore and nextCursors; the key\'s partition only', async () => {
    const res = await tp.api.post(E(), {});
    const data = expectOk(res, 200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(data)).toEqual(['object', 'format', 'exportedAt', 'teamId', 'tickets', 'customers', 'articles', 'summary', 'hasMore', 'nextCursors']);
    expect(data).toMatchObject({ object: 'export', format: 'json', exportedAt: expect.stringMatching(ISO), teamId: tp.team.teamId });
    expect(data.tickets.map((t: any) => t.id)).toEqual([t1.id, t2.id]);
    expect(data.tickets[0]).toEqual(expectOk(await tp.api.get(`${tp.teamPath}/tickets/${t1.id}`), 200).messages ? expect.objectContaining({ id: t1.id, title: 'Export one', tags: ['a', 'b'] }) : undefined);
    expect(data.customers.map((c: any) => c.id)).toContain(c1.id);
    expect(data.articles.map((a: any) => a.id)).toEqual([art.id]);
    expect(data.summary).toEqual({ tickets: 2, customers: data.customers.length, articles: 1 });
    expect(data.hasMore).toEqual({ tickets: false, customers: false, articles: false });
    expect(data.nextCursors).toEqual({ tickets: null, customers: null, articles: null });
  });

  it('filters are shared: status and created range apply to each resource, priority to tickets only', async () => {
    const high = expectOk(await tp.api.post(E(), { resources: ['tickets', 'articles'], filters: { priority: 'high' } }), 200);
    expect(high.tickets.map((t: any) => t.id)).toEqual([t1.id]);
    expect(high.summary).toEqual({ tickets: 1, articles: 1 });
    const draft = expectOk(await tp.api.post(E(), { resources: ['articles'], filters: { status: 'published' } }), 200);
    expect(draft.summary).toEqual({ articles: 0 });
    const later = expectOk(await tp.api.post(E(), { resources: ['tickets'], filters: { createdAfter: t2.createdAt } }), 200);
    expect(later.tickets.map((t: any) => t.id)).toEqual([t2.id]);
    const before = expectOk(await tp.api.post(E(), { resources: ['tickets'], filters: { createdBefore: t2.createdAt } }), 200);
    expect(before.tickets.map((t: any) => t.id)).toEqual(t1.createdAt < t2.createdAt ? [t1.id] : []);
  });

  it('CSV: one resource, RFC 4180 quoting, formulas escaped, lists joined with ;', async () => {
    const res = await tp.api.post(E(), { format: 'csv', resources: ['tickets'] });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('x-export-has-more')).toBe('false');
    const text = res.text;
    const lines = text.split('\r\n');
    expect(lines[0]).toBe('id,title,status,priority,customerId,assignedTo,tags,notes,messageCount,metadata,customFields,createdAt,updatedAt,resolvedAt,closedAt');
    expect(lines[1]).toBe(`${t1.id},Export one,new,high,,,a;b,,0,"{""k"":""v""}",{},${t1.createdAt},${t1.updatedAt},,`);
    // RFC 4180: a field with a quote, comma or line break is quoted, quotes doubled; a leading = is escaped.
    expect(text).toContain(`${t2.id},"'=HYPERLINK(""http://evil"")",new,low,,,,"line1\nline2, ""quoted""",0,{},{},`);
    expectError(await tp.api.post(E(), { format: 'csv', resources: ['tickets', 'customers'] }), 400, 'invalid_request_error', 'parameter_invalid', 'resources');
    expectError(await tp.api.post(E(), { format: 'csv' }), 400, 'invalid_request_error', 'parameter_missing', 'resources');
  });

  it('bad inputs and permissions', async () => {
    const bad: [unknown, string, string][] = [
      [{ resources: ['planets'] }, 'parameter_invalid', 'resources.0'],
      [{ resources: 'tickets' }, 'parameter_invalid', 'resources'],
      [{ resources: [] }, 'parameter_invalid', 'resources'],
      [{ format: 'xml' }, 'parameter_invalid', 'format'],
      [{ filters: { priority: 'extreme' } }, 'parameter_invalid', 'filters.priority'],
      [{ filters: { createdAfter: 'yesterday' } }, 'parameter_invalid', 'filters.createdAfter'],
      [{ filters: { createdAfter: '2030-01-01T00:00:00Z', createdBefore: '2020-01-01T00:00:00Z' } }, 'parameter_invalid', 'filters.createdBefore'],
      [{ filters: { colour: 'red' } }, 'parameter_invalid', 'filters.colour'],
      [{ cursor: 'not-a-cursor' }, 'parameter_invalid', 'cursor'],
      [{ everything: true }, 'parameter_invalid', 'everything'],
    ];
    for (const [body, code, param] of bad) expectError(await tp.api.post(E(), body), 400, 'invalid_request_error', code, param);
    expectError(await tp.api.post(E(), {}, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    const agent = await addMember(tp, await WorkspaceEvents.start(tp), tp.team, 'agent');
    expectError(await tp.api.post(E(), {}, { key: agent.key }), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await tp.api.get(`${INC()}?resource=tickets`, { key: agent.key }), 403, 'authorization_error', 'insufficient_permissions');
  });
});

describe('GET /export/incremental', () => {
  it('every change since the cursor, latest state once, deletions as tombstones; endOfStream; other partition never', async () => {
    const team = await tp.createTeam('Incremental Co');
    const path = `/teams/${team.teamId}`;
    const opts = { key: team.sk_test };
    const mk = async (title: string) => expectOk(await tp.api.post(`${path}/tickets`, { title }, opts), 201);
    const [a, b] = [await mk('Inc A'), await mk('Inc B')];
    await tp.api.post(`${path}/tickets`, { title: 'Live' }, { key: team.sk_live });
    await settle();
    const first = expectOk(await tp.api.get(`${path}/export/incremental?resource=tickets`, opts), 200);
    expect(first).toMatchObject({ object: 'incremental_export', resource: 'tickets', deletions: [], count: 2, endOfStream: true });
    expect(first.records.map((r: any) => r.id)).toEqual([a.id, b.id]);

    expectOk(await tp.api.patch(`${path}/tickets/${a.id}`, { priority: 'urgent' }, opts), 200);
    expectOk(await tp.api.patch(`${path}/tickets/${a.id}`, { status: 'open' }, opts), 200);
    expectOk(await tp.api.delete(`${path}/tickets/${b.id}`, opts), 200);
    const c = await mk('Inc C');
    // The tombstone is written when dataops consumes ticket.deleted, and is handed out once it is a second old:
    // on a loaded machine that can take longer than one settle, so ask again (same cursor) until it shows.
    const next = await eventually('the deletion and both changes reach the incremental export', async () => {
      const page = expectOk(await tp.api.get(`${path}/export/incremental?resource=tickets&cursor=${first.cursor}`, opts), 200);
      return page.deletions.length >= 1 && page.records.length >= 2 && page;
    });
    expect(next.records.map((r: any) => [r.id, r.priority, r.status])).toEqual([[a.id, 'urgent', 'open'], [c.id, 'normal', 'new']]);
    expect(next.deletions).toEqual([{ id: b.id, deletedAt: expect.stringMatching(ISO) }]);
    const none = expectOk(await tp.api.get(`${path}/export/incremental?resource=tickets&cursor=${next.cursor}`, opts), 200);
    expect(none).toMatchObject({ records: [], deletions: [], count: 0, endOfStream: true });

    const paged = expectOk(await tp.api.get(`${path}/export/incremental?resource=tickets&limit=1`, opts), 200);
    expect(paged).toMatchObject({ count: 2, endOfStream: false });
    const since = expectOk(await tp.api.get(`${path}/export/incremental?resource=tickets&startTime=${encodeURIComponent(c.createdAt)}`, opts), 200);
    expect(since.records.map((r: any) => r.id)).toEqual([c.id]);

    expectError(await tp.api.get(`${path}/export/incremental?resource=customers&cursor=${next.cursor}`, opts), 400, 'invalid_request_error', 'parameter_invalid', 'cursor');
    expectError(await tp.api.get(`${path}/export/incremental?resource=tickets&cursor=x${next.cursor}`, opts), 400, 'invalid_request_error', 'parameter_invalid', 'cursor');
    expectError(await tp.api.get(`${path}/export/incremental`, opts), 400, 'invalid_request_error', 'parameter_missing', 'resource');
    expectError(await tp.api.get(`${path}/export/incremental?resource=tickets&limit=1001`, opts), 400, 'invalid_request_error', 'parameter_invalid', 'limit');
    expectError(await tp.api.get(`${path}/export/incremental?resource=tickets&since=1`, opts), 400, 'invalid_request_error', 'parameter_invalid', 'since');
  });
});
