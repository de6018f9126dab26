import type { EventEnvelope } from '@helpdesk/contracts';
import { eventually } from '@helpdesk/testing';
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { expectError, expectOk, ISO } from './helpdesk-helpers';
import { addMember, WorkspaceEvents, type TestMember } from './workspace-helpers';

let tp: TestPlatform;
let members: WorkspaceEvents;
let team: TeamKeys;
let agent: TestMember;
const fieldEvents: EventEnvelope<any>[] = [];
const path = (p: string) => `/teams/${team.teamId}${p}`;
const get = (p: string, key = team.sk_test) => tp.api.get(path(p), { key });
const post = (p: string, body: unknown, key = team.sk_test) => tp.api.post(path(p), body, { key });
const patch = (p: string, body: unknown, key = team.sk_test) => tp.api.patch(path(p), body, { key });
const del = (p: string, key = team.sk_test) => tp.api.delete(path(p), { key });
const CF_ID = /^cf_[A-Za-z0-9]{24}$/;

beforeAll(async () => {
  tp = await startTestPlatform();
  members = await WorkspaceEvents.start(tp);
  await tp.observe('workspace', ['custom_field.#'], async (e) => {
    fieldEvents.push(e as EventEnvelope<any>);
  });
  team = await tp.createTeam('Fields Corp');
  agent = await addMember(tp, members, team, 'agent');
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

const eventsOf = (requestId: string) => fieldEvents.filter((e) => e.requestId === requestId);
async function waitForEvents(requestId: string, count: number) {
  await eventually(`${count} custom_field events of ${requestId}`, async () => eventsOf(requestId).length >= count, 10_000);
  return eventsOf(requestId);
}
const define = async (body: Record<string, unknown>) => expectOk(await post('/custom-fields', body), 201);
/** Waits until ticketing has seen the definition: a ticket then accepts a value for it. */
async function ticketingKnows(fieldId: string, value: unknown) {
  await eventually(`ticketing knows ${fieldId}`, async () => (await post('/tickets', { title: 'probe', customFields: { [fieldId]: value } })).status === 201, 10_000);
}

describe('custom field definitions', () => {
  it('POST defines a field with its defaults, placed at the end of its type; GET lists them in display order and filters by entity', async () => {
    const first = await define({ contentType: 'customer', label: 'Plan' });
    expect(first).toEqual({
      id: expect.stringMatching(CF_ID), object: 'custom_field', contentType: 'customer', label: 'Plan', fieldType: 'text', defaultValue: null,
      options: null, minValue: null, maxValue: null, required: false, sortOrder: 0, createdAt: expect.stringMatching(ISO),
    });
    const res = await post('/custom-fields', { contentType: 'customer', label: 'Seats', fieldType: 'number', minValue: 1, maxValue: 500, defaultValue: 5, required: true });
    const second = expectOk(res, 201);
    expect(second).toMatchObject({ fieldType: 'number', minValue: 1, maxValue: 500, defaultValue: 5, required: true, sortOrder: 1 });
    const [e] = await waitForEvents(res.body.meta.requestId, 1);
    expect(e).toMatchObject({ type: 'custom_field.created', teamId: team.teamId, mode: 'test', data: { customField: second, rev: 1 } });
    const article = await define({ contentType: 'article', label: 'Audience', fieldType: 'select', options: ['admins', 'everyone'] });

    expect(expectOk(await get('/custom-fields?entity=customer'), 200)).toEqual([first, second]);
    // Per team: the live key sees the same definitions; types in the spec's order (ticket, customer, article).
    const all = expectOk(await get('/custom-fields', team.sk_live), 200);
    expect(all.map((f: any) => f.id)).toEqual([first.id, second.id, article.id]);
    expect(expectOk(await get(`/custom-fields/${second.id}`, agent.key), 200)).toEqual(second);
  });

  it('checks the rules between fields: options only and always for select, bounds only for number with min ≤ max, a default valid for its type', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ contentType: 'ticket', label: 'Tier', fieldType: 'select' }, 'options'],
      [{ contentType: 'ticket', label: 'Tier', fieldType: 'text', options: ['a'] }, 'options'],
      [{ contentType: 'ticket', label: 'Tier', fieldType: 'select', options: ['a', 'a'] }, 'options'],
      [{ contentType: 'ticket', label: 'Tier', fieldType: 'select', options: [] }, 'options'],
      [{ contentType: 'ticket', label: 'Size', fieldType: 'text', minValue: 1 }, 'minValue'],
      [{ contentType: 'ticket', label: 'Size', fieldType: 'date', maxValue: 1 }, 'maxValue'],
      [{ contentType: 'ticket', label: 'Size', fieldType: 'number', minValue: 10, maxValue: 1 }, 'maxValue'],
      [{ contentType: 'ticket', label: 'Size', fieldType: 'number', maxValue: 10, defaultValue: 11 }, 'defaultValue'],
      [{ contentType: 'ticket', label: 'Size', fieldType: 'number', defaultValue: '3' }, 'defaultValue'],
      [{ contentType: 'ticket', label: 'Due', fieldType: 'date', defaultValue: '2026-02-30' }, 'defaultValue'],
      [{ contentType: 'ticket', label: 'Tier', fieldType: 'select', options: ['a'], defaultValue: 'b' }, 'defaultValue'],
      [{ contentType: 'ticket', label: 'VIP', fieldType: 'checkbox', defaultValue: 'yes' }, 'defaultValue'],
      [{ contentType: 'ticket', label: 'Notes', defaultValue: 'x'.repeat(1_001) }, 'defaultValue'],
      [{ contentType: 'ticket', label: 'Size', fieldType: 'decimal' }, 'fieldType'],
      [{ contentType: 'order', label: 'Size' }, 'contentType'],
      [{ contentType: 'ticket', label: '' }, 'label'],
      [{ contentType: 'ticket', label: 42 }, 'label'],
      [{ contentType: 'ticket', label: 'Size', required: 'yes' }, 'required'],
      [{ contentType: 'ticket', label: 'Size', colour: 'red' }, 'colour'],
    ];
    for (const [body, param] of cases) {
      const res = await post('/custom-fields', body);
      expectError(res, 400, 'invalid_request_error', 'parameter_invalid', param);
      expect(eventsOf(res.body.error.request_id)).toEqual([]);
    }
    expectError(await post('/custom-fields', { label: 'Size' }), 400, 'invalid_request_error', 'parameter_missing', 'contentType');
    expectError(await post('/custom-fields', { contentType: 'ticket' }), 400, 'invalid_request_error', 'parameter_missing', 'label');
    expect(expectOk(await get('/custom-fields?entity=ticket'), 200)).toEqual([]);
    expectError(await get('/custom-fields?entity=order'), 400, 'invalid_request_error', 'parameter_invalid', 'entity');
    expectError(await get('/custom-fields?type=ticket'), 400, 'invalid_request_error', 'parameter_invalid', 'type');
  });

  it('refuses other teams, publishable keys, and writes without manage_settings; nothing is written', async () => {
    const f = await define({ contentType: 'ticket', label: 'Guarded' });
    expectError(await get('/custom-fields', team.pk_test), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await get('/custom-fields', tp.otherTeam.sk_test), 403, 'authorization_error', 'team_access_denied');
    expectError(await get(`/custom-fields/cf_${'x'.repeat(24)}`), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.get(`/teams/${tp.otherTeam.teamId}/custom-fields/${f.id}`, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
    expectError(await post('/custom-fields', { contentType: 'ticket', label: 'Nope' }, agent.key), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await patch(`/custom-fields/${f.id}`, { label: 'Nope' }, agent.key), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await del(`/custom-fields/${f.id}`, agent.key), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await post('/custom-fields', { contentType: 'ticket', label: 'Nope' }, team.pk_test), 403, 'authorization_error', 'publishable_key_write');
    expectError(await patch(`/custom-fields/${f.id}`, { label: 'Nope' }, tp.otherTeam.sk_test), 403, 'authorization_error', 'team_access_denied');
    expect(expectOk(await get(`/custom-fields/${f.id}`), 200)).toEqual(f);
    expectOk(await del(`/custom-fields/${f.id}`), 200);
  });

  it('PATCH changes given fields under the same rules (type and record type fixed), emitting custom_field.updated', async () => {
    const f = await define({ contentType: 'ticket', label: 'Tier', fieldType: 'select', options: ['gold', 'silver'] });
    const res = await patch(`/custom-fields/${f.id}`, { label: 'Support tier', options: ['gold', 'silver', 'bronze'], defaultValue: 'bronze' });
    const u = expectOk(res, 200);
    expect(u).toEqual({ ...f, label: 'Support tier', options: ['gold', 'silver', 'bronze'], defaultValue: 'bronze' });
    const [e] = await waitForEvents(res.body.meta.requestId, 1);
    expect(e).toMatchObject({ type: 'custom_field.updated', data: { customField: u, rev: 2, changes: ['label', 'defaultValue', 'options'], previous: { label: 'Tier', options: ['gold', 'silver'], defaultValue: null } } });
    expectError(await patch(`/custom-fields/${f.id}`, { options: null }), 400, 'invalid_request_error', 'parameter_invalid', 'options');
    expectError(await patch(`/custom-fields/${f.id}`, { defaultValue: 'platinum' }), 400, 'invalid_request_error', 'parameter_invalid', 'defaultValue');
    expectError(await patch(`/custom-fields/${f.id}`, { minValue: 1 }), 400, 'invalid_request_error', 'parameter_invalid', 'minValue');
    expectError(await patch(`/custom-fields/${f.id}`, { fieldType: 'text' }), 400, 'invalid_request_error', 'parameter_invalid', 'fieldType');
    expectError(await patch(`/custom-fields/${f.id}`, { contentType: 'customer' }), 400, 'invalid_request_error', 'parameter_invalid', 'contentType');
    expectError(await patch(`/custom-fields/cf_${'y'.repeat(24)}`, { label: 'x' }), 404, 'not_found_error', 'resource_not_found');
    expect(expectOk(await get(`/custom-fields/${f.id}`), 200)).toEqual(u);
    // Nothing changed: no event.
    const same = await patch(`/custom-fields/${f.id}`, { label: 'Support tier' });
    expect(expectOk(same, 200)).toEqual(u);
    const d = expectOk(await del(`/custom-fields/${f.id}`), 200);
    expect(d).toEqual({ id: f.id, deleted: true });
    expect(eventsOf(same.body.meta.requestId)).toEqual([]);
    expectError(await del(`/custom-fields/${f.id}`), 404, 'not_found_error', 'resource_not_found');
    // Ticketing forgets it (its default no longer applies to later tests' tickets).
    await eventually('ticketing forgot the field', async () => (await post('/tickets', { title: 'probe', customFields: { [f.id]: 'gold' } })).status === 400, 10_000);
  });

  it('reorder sets a type\'s display order from a complete list; an incomplete or foreign list is refused', async () => {
    const a = await define({ contentType: 'article', label: 'A' });
    const list = () => get('/custom-fields?entity=article').then((r) => expectOk(r, 200).map((f: any) => f.id));
    const before = await list();
    expect(before.at(-1)).toBe(a.id);
    const wanted = [a.id, ...before.slice(0, -1)];
    const res = await post('/custom-fields/reorder', { contentType: 'article', fieldIds: wanted });
    expect(expectOk(res, 200).map((f: any) => [f.id, f.sortOrder])).toEqual(wanted.map((id, i) => [id, i]));
    expect(await list()).toEqual(wanted);
    const events = await waitForEvents(res.body.meta.requestId, wanted.length);
    expect(events.every((e) => e.type === 'custom_field.updated' && e.data.changes[0] === 'sortOrder')).toBe(true);
    expectError(await post('/custom-fields/reorder', { contentType: 'article', fieldIds: [a.id] }), 400, 'invalid_request_error', 'parameter_invalid', 'fieldIds');
    expectError(await post('/custom-fields/reorder', { contentType: 'article', fieldIds: [...wanted, a.id] }), 400, 'invalid_request_error', 'parameter_invalid', 'fieldIds');
    expectError(await post('/custom-fields/reorder', { contentType: 'article' }), 400, 'invalid_request_error', 'parameter_missing', 'fieldIds');
    expectError(await post('/custom-fields/reorder', { contentType: 'article', fieldIds: wanted }, agent.key), 403, 'authorization_error', 'insufficient_permissions');
    expect(await list()).toEqual(wanted);
  });
});

describe('ticket custom field values', () => {
  it('are checked by ticketing where tickets are written: type, option, bounds, required with its default; 400 names customFields.<fieldId>', async () => {
    const size = await define({ contentType: 'ticket', label: 'Size', fieldType: 'number', minValue: 0, maxValue: 10 });
    const tier = await define({ contentType: 'ticket', label: 'Tier', fieldType: 'select', options: ['gold', 'silver'], required: true, defaultValue: 'silver' });
    const due = await define({ contentType: 'ticket', label: 'Due', fieldType: 'date' });
    const vip = await define({ contentType: 'ticket', label: 'VIP', fieldType: 'checkbox' });
    const customerField = await define({ contentType: 'customer', label: 'Region' });
    await ticketingKnows(vip.id, true);

    const t = expectOk(await post('/tickets', { title: 'Values', customFields: { [size.id]: 3, [due.id]: '2026-12-01' } }), 201);
    expect(t.customFields).toEqual({ [size.id]: 3, [due.id]: '2026-12-01', [tier.id]: 'silver' });
    expect(expectOk(await get(`/tickets/${t.id}`), 200).customFields).toEqual(t.customFields);

    const refused: [unknown, string][] = [
      [{ [size.id]: 11 }, size.id],
      [{ [size.id]: '3' }, size.id],
      [{ [tier.id]: 'bronze' }, tier.id],
      [{ [due.id]: '2026-13-01' }, due.id],
      [{ [vip.id]: 'yes' }, vip.id],
      [{ [customerField.id]: 'EU' }, customerField.id],
      [{ cf_unknownunknownunknown1: 1 }, 'cf_unknownunknownunknown1'],
    ];
    for (const [customFields, id] of refused) {
      expectError(await post('/tickets', { title: 'Bad', customFields }), 400, 'invalid_request_error', 'parameter_invalid', `customFields.${id}`);
      expectError(await patch(`/tickets/${t.id}`, { customFields }), 400, 'invalid_request_error', 'parameter_invalid', `customFields.${id}`);
    }
    expectError(await post('/tickets', { title: 'Bad', customFields: 'gold' }), 400, 'invalid_request_error', 'parameter_invalid', 'customFields');
    expect(expectOk(await get(`/tickets/${t.id}`), 200).customFields).toEqual(t.customFields);

    // PATCH merges; null removes a value; a required field removed falls back to its default.
    const u = expectOk(await patch(`/tickets/${t.id}`, { customFields: { [vip.id]: true, [due.id]: null, [tier.id]: null } }), 200);
    expect(u.customFields).toEqual({ [size.id]: 3, [tier.id]: 'silver', [vip.id]: true });
    expect(expectOk(await patch(`/tickets/${t.id}`, { customFields: { [tier.id]: 'gold' } }), 200).customFields[tier.id]).toBe('gold');
  });

  it('a required field without a default must be given on create and cannot be removed', async () => {
    const ref = await define({ contentType: 'ticket', label: 'Reference', required: true });
    await ticketingKnows(ref.id, 'probe');
    expectError(await post('/tickets', { title: 'Missing' }), 400, 'invalid_request_error', 'parameter_invalid', `customFields.${ref.id}`);
    const t = expectOk(await post('/tickets', { title: 'Given', customFields: { [ref.id]: 'R-1' } }), 201);
    expectError(await patch(`/tickets/${t.id}`, { customFields: { [ref.id]: null } }), 400, 'invalid_request_error', 'parameter_invalid', `customFields.${ref.id}`);
    // Other fields still change without sending it again.
    expect(expectOk(await patch(`/tickets/${t.id}`, { priority: 'high' }), 200).customFields).toEqual(t.customFields);
    expectOk(await del(`/custom-fields/${ref.id}`), 200);
    await eventually('ticketing forgot the required field', async () => (await post('/tickets', { title: 'Free again' })).status === 201, 10_000);
  });

  it("a deleted definition's values disappear from reads, in both partitions, and the field is refused in writes", async () => {
    const gone = await define({ contentType: 'ticket', label: 'Gone', fieldType: 'checkbox' });
    await ticketingKnows(gone.id, false);
    const test = expectOk(await post('/tickets', { title: 'Test ticket', customFields: { [gone.id]: true } }), 201);
    const live = expectOk(await post('/tickets', { title: 'Live ticket', customFields: { [gone.id]: false } }, team.sk_live), 201);
    expect(test.customFields[gone.id]).toBe(true);
    expect(live.customFields[gone.id]).toBe(false);
    expectOk(await del(`/custom-fields/${gone.id}`), 200);
    await eventually('values removed', async () => {
      const [a, b] = await Promise.all([get(`/tickets/${test.id}`), get(`/tickets/${live.id}`, team.sk_live)]);
      return !(gone.id in expectOk(a, 200).customFields) && !(gone.id in expectOk(b, 200).customFields);
    }, 10_000);
    expectError(await patch(`/tickets/${test.id}`, { customFields: { [gone.id]: true } }), 400, 'invalid_request_error', 'parameter_invalid', `customFields.${gone.id}`);
  });

  it("another team's definitions do not apply", async () => {
    const f = await define({ contentType: 'ticket', label: 'Ours', fieldType: 'number' });
    await ticketingKnows(f.id, 1);
    const other = await tp.api.post(`/teams/${tp.otherTeam.teamId}/tickets`, { title: 'Theirs', customFields: { [f.id]: 1 } }, { key: tp.otherTeam.sk_test });
    expectError(other, 400, 'invalid_request_error', 'parameter_invalid', `customFields.${f.id}`);
  });
});

describe('customer custom field values', () => {
  it('are checked by the customers service on create and update, merged, with defaults; deleted fields vanish from reads', async () => {
    const region = await define({ contentType: 'customer', label: 'Region', fieldType: 'select', options: ['EU', 'US'], required: true, defaultValue: 'EU' });
    const since = await define({ contentType: 'customer', label: 'Since', fieldType: 'date' });
    const ticketField = await define({ contentType: 'ticket', label: 'Ticket only', fieldType: 'checkbox' });
    const email = () => `c-${Math.random().toString(36).slice(2)}@example.com`;
    await eventually('customers knows the fields', async () =>
      (await post('/customers', { name: 'Probe', email: email(), customFields: { [since.id]: '2020-01-01' } })).status === 201, 10_000);

    const c = expectOk(await post('/customers', { name: 'Ada', email: email(), customFields: { [since.id]: '2021-05-04' } }), 201);
    // Fields defined earlier in this file (Plan, Seats with default 5) apply too.
    expect(c.customFields).toMatchObject({ [region.id]: 'EU', [since.id]: '2021-05-04' });
    for (const [customFields, id] of [[{ [region.id]: 'APAC' }, region.id], [{ [since.id]: 'yesterday' }, since.id], [{ [ticketField.id]: true }, ticketField.id]] as const) {
      expectError(await post('/customers', { name: 'Bad', email: email(), customFields }), 400, 'invalid_request_error', 'parameter_invalid', `customFields.${id}`);
      expectError(await patch(`/customers/${c.id}`, { customFields }), 400, 'invalid_request_error', 'parameter_invalid', `customFields.${id}`);
    }
    const u = expectOk(await patch(`/customers/${c.id}`, { customFields: { [region.id]: 'US', [since.id]: null } }), 200);
    expect(u.customFields[region.id]).toBe('US');
    expect(since.id in u.customFields).toBe(false);
    expect(expectOk(await get(`/customers/${c.id}`), 200).customFields).toEqual(u.customFields);

    expectOk(await del(`/custom-fields/${region.id}`), 200);
    await eventually('region removed', async () => !(region.id in expectOk(await get(`/customers/${c.id}`), 200).customFields), 10_000);
  });
});

describe('article custom field values', () => {
  it('are checked by the knowledge service, kept from staff reads only, and vanish with their definition', async () => {
    const level = await define({ contentType: 'article', label: 'Level', fieldType: 'number', minValue: 1, maxValue: 3 });
    await eventually('knowledge knows the field', async () => (await post('/articles', { title: 'Probe', customFields: { [level.id]: 1 } })).status === 201, 10_000);
    const a = expectOk(await post('/articles', { title: 'Guide', status: 'published', isPublic: true, customFields: { [level.id]: 2 } }), 201);
    expect(a.customFields).toMatchObject({ [level.id]: 2 });
    expectError(await post('/articles', { title: 'Bad', customFields: { [level.id]: 4 } }), 400, 'invalid_request_error', 'parameter_invalid', `customFields.${level.id}`);
    expectError(await patch(`/articles/${a.id}`, { customFields: { [level.id]: true } }), 400, 'invalid_request_error', 'parameter_invalid', `customFields.${level.id}`);
    expect(expectOk(await patch(`/articles/${a.id}`, { customFields: { [level.id]: 3 } }), 200).customFields[level.id]).toBe(3);
    // A publishable key reads the public article without its staff-only fields.
    const pub = expectOk(await get(`/articles/${a.id}`, team.pk_test), 200);
    expect(pub).not.toHaveProperty('customFields');
    expectOk(await del(`/custom-fields/${level.id}`), 200);
    await eventually('level removed', async () => !(level.id in expectOk(await get(`/articles/${a.id}`), 200).customFields), 10_000);
  });
});
