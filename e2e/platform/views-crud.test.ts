/** Saved views through the gateway: create, list, get, change, delete, visibility, filters validated per entity, events (docs/adr/0035). */
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { expectError, expectOk, ISO } from './helpdesk-helpers';
import { addMember, WorkspaceEvents, type TestMember } from './workspace-helpers';

let tp: TestPlatform;
let log: WorkspaceEvents;
let agent: TestMember;
const V = () => `${tp.teamPath}/views`;
const create = (body: unknown, key = tp.team.sk_test) => tp.api.post(V(), body, { key });
const list = async (key = tp.team.sk_test, query?: Record<string, string>) => expectOk(await tp.api.get(V(), { key, query }), 200);
const VIEW_ID = /^view_[A-Za-z0-9]{24}$/;

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await WorkspaceEvents.start(tp);
  await tp.observe('workspace', ['saved_view.#'], async (e) => {
    log.events.push(e as any);
  });
  agent = await addMember(tp, log, tp.team, 'agent');
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('saved views', () => {
  it('creates a view with the spec\'s defaults, filters kept as validated; emits saved_view.created', async () => {
    const res = await create({ name: 'Urgent open', entityType: 'tickets', filters: { status: 'open', priority: 'urgent' } });
    const view = expectOk(res, 201);
    expect(view).toEqual({
      id: expect.stringMatching(VIEW_ID), object: 'saved_view', name: 'Urgent open', entityType: 'tickets', filters: { status: 'open', priority: 'urgent' },
      sortField: 'created_at', sortDirection: 'desc', visibility: 'team', createdBy: expect.stringMatching(/^mem_/), createdAt: expect.stringMatching(ISO), updatedAt: view.createdAt,
    });
    const [event] = await log.waitForRequest(res.body.meta.requestId);
    expect(event).toMatchObject({ type: 'saved_view.created', mode: 'test', data: { view } });
    expect(expectOk(await tp.api.get(`${V()}/${view.id}`), 200)).toEqual(view);
    const articles = expectOk(await create({ name: 'Public', entityType: 'articles', filters: { isPublic: 'true' }, sortField: 'title', sortDirection: 'asc' }), 201);
    expect(articles).toMatchObject({ filters: { isPublic: true }, sortField: 'title', sortDirection: 'asc' });
  });

  it('lists the views the key can see, newest first, by entityType; private views are their creator\'s alone', async () => {
    const mine = expectOk(await create({ name: 'My customers', entityType: 'customers', visibility: 'private' }, agent.key), 201);
    const all = await list(agent.key);
    expect(all[0].id).toBe(mine.id);
    expect(all.map((v: any) => v.createdAt)).toEqual([...all.map((v: any) => v.createdAt)].sort().reverse());
    expect((await list(agent.key, { entityType: 'customers' })).map((v: any) => v.id)).toEqual([mine.id]);
    // The owner's key does not see the agent's private view: 404 everywhere, not 403.
    expect((await list()).map((v: any) => v.id)).not.toContain(mine.id);
    expectError(await tp.api.get(`${V()}/${mine.id}`), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.patch(`${V()}/${mine.id}`, { name: 'Stolen' }), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.delete(`${V()}/${mine.id}`), 404, 'not_found_error', 'resource_not_found');
    // The other partition and the other team see none of them.
    expect(await list(tp.team.sk_live)).toEqual([]);
    expect(expectOk(await tp.api.get(`/teams/${tp.otherTeam.teamId}/views`, { key: tp.otherTeam.sk_test }), 200)).toEqual([]);
    expectError(await tp.api.get(`/teams/${tp.otherTeam.teamId}/views/${mine.id}`, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
  });

  it('PATCH changes what is sent (filters replaced and validated against the view\'s entity); emits saved_view.updated; DELETE removes it', async () => {
    const view = expectOk(await create({ name: 'Negative', entityType: 'customers', filters: { sentiment: 'negative' } }), 201);
    const res = await tp.api.patch(`${V()}/${view.id}`, { name: 'Unhappy', filters: { sentiment: 'negative', search: 'acme' }, sortField: 'name' });
    const changed = expectOk(res, 200);
    expect(changed).toMatchObject({ name: 'Unhappy', filters: { sentiment: 'negative', search: 'acme' }, sortField: 'name', sortDirection: 'desc', entityType: 'customers' });
    const [event] = await log.waitForRequest(res.body.meta.requestId);
    expect(event.type).toBe('saved_view.updated');
    expect(event.data.changes).toEqual(['name', 'filters', 'sortField']);
    expect(event.data.previous).toEqual({ name: 'Negative', filters: { sentiment: 'negative' }, sortField: 'created_at' });
    expectError(await tp.api.patch(`${V()}/${view.id}`, { filters: { priority: 'high' } }), 400, 'invalid_request_error', 'parameter_invalid', 'filters.priority');
    expectError(await tp.api.patch(`${V()}/${view.id}`, { entityType: 'tickets' }), 400, 'invalid_request_error', 'parameter_invalid', 'entityType');
    expectError(await tp.api.patch(`${V()}/${view.id}`, { sortField: 'title' }), 400, 'invalid_request_error', 'parameter_invalid', 'sortField');
    const del = await tp.api.delete(`${V()}/${view.id}`);
    expect(expectOk(del, 200)).toEqual({ id: view.id, deleted: true });
    expect((await log.waitForRequest(del.body.meta.requestId))[0]).toMatchObject({ type: 'saved_view.deleted', data: { viewId: view.id } });
    expectError(await tp.api.get(`${V()}/${view.id}`), 404, 'not_found_error', 'resource_not_found');
  });

  it('bad inputs are 400s naming the field, and nothing is saved', async () => {
    const before = (await list()).length;
    expectError(await create({ entityType: 'tickets' }), 400, 'invalid_request_error', 'parameter_missing', 'name');
    expectError(await create({ name: 'x' }), 400, 'invalid_request_error', 'parameter_missing', 'entityType');
    expectError(await create({ name: 'x', entityType: 'invoices' }), 400, 'invalid_request_error', 'parameter_invalid', 'entityType');
    expectError(await create({ name: '  ', entityType: 'tickets' }), 400, 'invalid_request_error', 'parameter_invalid', 'name');
    expectError(await create({ name: 'x'.repeat(101), entityType: 'tickets' }), 400, 'invalid_request_error', 'parameter_invalid', 'name');
    expectError(await create({ name: 'x', entityType: 'tickets', filters: { status: 'sleeping' } }), 400, 'invalid_request_error', 'parameter_invalid', 'filters.status');
    expectError(await create({ name: 'x', entityType: 'tickets', filters: { colour: 'red' } }), 400, 'invalid_request_error', 'parameter_invalid', 'filters.colour');
    expectError(await create({ name: 'x', entityType: 'tickets', filters: { page: 2 } }), 400, 'invalid_request_error', 'parameter_invalid', 'filters.page');
    expectError(await create({ name: 'x', entityType: 'articles', filters: { isPublic: 'yes' } }), 400, 'invalid_request_error', 'parameter_invalid', 'filters.isPublic');
    expectError(await create({ name: 'x', entityType: 'tickets', filters: 'status=open' }), 400, 'invalid_request_error', 'parameter_invalid', 'filters');
    expectError(await create({ name: 'x', entityType: 'tickets', sortField: 'name' }), 400, 'invalid_request_error', 'parameter_invalid', 'sortField');
    expectError(await create({ name: 'x', entityType: 'tickets', sortDirection: 'up' }), 400, 'invalid_request_error', 'parameter_invalid', 'sortDirection');
    expectError(await create({ name: 'x', entityType: 'tickets', visibility: 'public' }), 400, 'invalid_request_error', 'parameter_invalid', 'visibility');
    expectError(await create({ name: 'x', entityType: 'tickets', owner: 'me' }), 400, 'invalid_request_error', 'parameter_invalid', 'owner');
    expectError(await tp.api.get(V(), { query: { entityType: 'posts' } }), 400, 'invalid_request_error', 'parameter_invalid', 'entityType');
    expectError(await tp.api.get(`${V()}/not-an-id`), 400, 'invalid_request_error', 'invalid_id_format', 'viewId');
    expectError(await create({ name: 'x', entityType: 'tickets' }, tp.team.pk_test), 403, 'authorization_error', 'publishable_key_write');
    expectError(await tp.api.get(V(), { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_forbidden');
    expect((await list()).length).toBe(before);
  });
});
