/** POST /bulk through the gateway (docs/adr/0036): each id through its resource's own rules and events; failures alone. */
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createCustomer, EventLog, expectError, expectOk } from './helpdesk-helpers';
import { addMember, WorkspaceEvents } from './workspace-helpers';

let tp: TestPlatform;
let log: EventLog;
const B = () => `${tp.teamPath}/bulk`;
const ticket = async (title: string, key?: string, teamPath = tp.teamPath) => expectOk(await tp.api.post(`${teamPath}/tickets`, { title }, key ? { key } : {}), 201);

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await EventLog.start(tp);
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('POST /bulk', () => {
  it('updates tickets through the PATCH rules and events; unknown, other-team and other-partition ids fail alone', async () => {
    const [a, b] = [await ticket('Bulk A'), await ticket('Bulk B')];
    const live = await ticket('Live one', tp.team.sk_live);
    const other = await ticket('Other team', tp.otherTeam.sk_test, `/teams/${tp.otherTeam.teamId}`);
    const missing = 'tkt_' + 'x'.repeat(24);
    const res = await tp.api.post(B(), { action: 'update', resource: 'tickets', ids: [a.id, b.id, live.id, other.id, missing, a.id], data: { status: 'resolved', tags: ['bulk'] } });
    const out = expectOk(res, 200);
    expect(out).toEqual({
      object: 'bulk_result', action: 'update', resource: 'tickets', total: 5, succeeded: 2, failed: 3, succeededIds: [a.id, b.id],
      errors: [live.id, other.id, missing].map((id) => ({ id, code: 'resource_not_found', message: `No such ticket: '${id}'.` })),
    });
    for (const t of [a, b]) {
      const got = expectOk(await tp.api.get(`${tp.teamPath}/tickets/${t.id}`), 200);
      expect([got.status, got.tags, typeof got.closedAt]).toEqual(['resolved', ['bulk'], 'string']);
      const events = await log.waitFor(t.id, 3);
      expect(events.map((e) => e.type)).toEqual(['ticket.created', 'ticket.updated', 'ticket.closed']);
      expect(events[1].requestId).toBe(res.headers.get('x-svc-request-id'));
    }
    expect(expectOk(await tp.api.get(`${tp.teamPath}/tickets/${live.id}`, { key: tp.team.sk_live }), 200).status).toBe('new');
  });

  it('a record refused by its own rules fails alone with that rule\'s code (over-long title, merged status)', async () => {
    const long = await ticket('x'.repeat(10));
    const res = await tp.api.post(B(), { action: 'update', resource: 'tickets', ids: [long.id], data: { title: 'y'.repeat(256) } });
    expect(expectOk(res, 200)).toMatchObject({ succeeded: 0, failed: 1, errors: [{ id: long.id, code: 'parameter_invalid' }] });
    const merged = expectOk(await tp.api.post(B(), { action: 'update', resource: 'tickets', ids: [long.id], data: { status: 'merged' } }), 200);
    expect(merged).toMatchObject({ succeeded: 0, failed: 1, errors: [{ id: long.id, code: 'parameter_invalid' }] });
    expect(expectOk(await tp.api.get(`${tp.teamPath}/tickets/${long.id}`), 200)).toMatchObject({ title: 'x'.repeat(10), status: 'new' });
  });

  it('deletes customers and articles through their DELETE rules; a taken email fails alone with resource_conflict', async () => {
    const [c1, c2] = [await createCustomer(tp, 'Bulk One', 'bulk1@example.com'), await createCustomer(tp, 'Bulk Two', 'bulk2@example.com')];
    const clash = expectOk(await tp.api.post(B(), { action: 'update', resource: 'customers', ids: [c1.id, c2.id], data: { email: 'bulk1@example.com' } }), 200);
    expect(clash).toMatchObject({ succeeded: 1, failed: 1, succeededIds: [c1.id], errors: [{ id: c2.id, code: 'resource_conflict' }] });
    expect(expectOk(await tp.api.post(B(), { action: 'delete', resource: 'customers', ids: [c1.id, c2.id] }), 200)).toMatchObject({ succeeded: 2, failed: 0, errors: [] });
    expect((await tp.api.get(`${tp.teamPath}/customers/${c1.id}`)).status).toBe(404);

    const art = expectOk(await tp.api.post(`${tp.teamPath}/articles`, { title: 'Bulk article' }), 201);
    expect(expectOk(await tp.api.post(B(), { action: 'update', resource: 'articles', ids: [art.id], data: { status: 'published', isPublic: true } }), 200)).toMatchObject({ succeeded: 1 });
    expect(expectOk(await tp.api.get(`${tp.teamPath}/articles/${art.id}`), 200)).toMatchObject({ status: 'published', isPublic: true });
    expect(expectOk(await tp.api.post(B(), { action: 'delete', resource: 'articles', ids: [art.id] }), 200)).toMatchObject({ succeeded: 1 });
    expect((await tp.api.get(`${tp.teamPath}/articles/${art.id}`)).status).toBe(404);
  });

  it('bad inputs: a clear error and nothing written', async () => {
    const t = await ticket('Untouched');
    const bad: [unknown, string, string][] = [
      [{ resource: 'tickets', ids: [t.id], data: { priority: 'high' } }, 'parameter_missing', 'action'],
      [{ action: 'update', ids: [t.id], data: {} }, 'parameter_missing', 'resource'],
      [{ action: 'update', resource: 'tickets', data: { priority: 'high' } }, 'parameter_missing', 'ids'],
      [{ action: 'update', resource: 'tickets', ids: [t.id] }, 'parameter_missing', 'data'],
      [{ action: 'archive', resource: 'tickets', ids: [t.id] }, 'parameter_invalid', 'action'],
      [{ action: 'update', resource: 'spaceships', ids: [t.id], data: {} }, 'parameter_invalid', 'resource'],
      [{ action: 'update', resource: 'tickets', ids: t.id, data: { priority: 'high' } }, 'parameter_invalid', 'ids'],
      [{ action: 'update', resource: 'tickets', ids: [], data: { priority: 'high' } }, 'parameter_invalid', 'ids'],
      [{ action: 'update', resource: 'tickets', ids: Array.from({ length: 101 }, (_, i) => `tkt_${String(i).padStart(24, '0')}`), data: { priority: 'high' } }, 'parameter_invalid', 'ids'],
      [{ action: 'update', resource: 'tickets', ids: [t.id], data: { priority: 'extreme' } }, 'parameter_invalid', 'data.priority'],
      [{ action: 'update', resource: 'tickets', ids: [t.id], data: { colour: 'red' } }, 'parameter_invalid', 'data.colour'],
      [{ action: 'update', resource: 'tickets', ids: [t.id], data: {} }, 'parameter_invalid', 'data'],
      [{ action: 'delete', resource: 'tickets', ids: [t.id], data: { priority: 'high' } }, 'parameter_invalid', 'data'],
      [{ action: 'update', resource: 'tickets', ids: [t.id], data: { priority: 'high' }, extra: 1 }, 'parameter_invalid', 'extra'],
    ];
    for (const [body, code, param] of bad) expectError(await tp.api.post(B(), body), 400, 'invalid_request_error', code, param);
    expectError(await tp.api.post(B(), { action: 'delete', resource: 'tickets', ids: [t.id] }, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    expect(expectOk(await tp.api.get(`${tp.teamPath}/tickets/${t.id}`), 200)).toMatchObject({ priority: 'normal', status: 'new' });
  });

  it('needs manage_<resource>: a librarian may bulk-edit articles, not tickets', async () => {
    const ws = await WorkspaceEvents.start(tp);
    const librarian = await addMember(tp, ws, tp.team, 'librarian');
    const t = await ticket('Not for librarians');
    expectError(await tp.api.post(B(), { action: 'delete', resource: 'tickets', ids: [t.id] }, { key: librarian.key }), 403, 'authorization_error', 'insufficient_permissions');
    const art = expectOk(await tp.api.post(`${tp.teamPath}/articles`, { title: 'Librarian may' }), 201);
    expect(expectOk(await tp.api.post(B(), { action: 'delete', resource: 'articles', ids: [art.id] }, { key: librarian.key }), 200)).toMatchObject({ succeeded: 1 });
    expect((await tp.api.get(`${tp.teamPath}/tickets/${t.id}`)).status).toBe(200);
  });
});
