import type { EventEnvelope } from '@helpdesk/contracts';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { eventually, expectError, expectOk } from './helpdesk-helpers';
import { addMember, WorkspaceEvents, type TestMember } from './workspace-helpers';

let tp: TestPlatform;
let agent: TestMember;
const events: EventEnvelope<any>[] = [];
const rules = () => `${tp.teamPath}/sla/rules`;
const RULE_KEYS = ['createdAt', 'enabled', 'id', 'name', 'object', 'position', 'priorityKey', 'resolutionTimeMinutes', 'responseTimeMinutes', 'updatedAt', 'use24x7'];
const valid = { name: 'Urgent', priorityKey: 'urgent', responseTimeMinutes: 15, resolutionTimeMinutes: 240 };

beforeAll(async () => {
  tp = await startTestPlatform();
  await tp.observe('ticketing', ['sla_rule.#'], async (e) => void events.push(e as EventEnvelope<any>));
  agent = await addMember(tp, await WorkspaceEvents.start(tp), tp.team, 'agent');
}, 120_000);
afterAll(async () => tp?.stop(), 60_000);

const stored = () => tp.platform.ticketing.conn.collection('sla_rules').find({ teamId: tp.team.teamId, mode: 'test' }).sort({ position: 1 }).toArray();
const ofRequest = async (requestId: string, n = 1) => {
  await tp.platform.ticketing.relay.drain();
  return eventually(`${n} events of ${requestId}`, () => {
    const found = events.filter((e) => e.requestId === requestId);
    return found.length >= n ? found : null;
  });
};
async function clear() {
  for (const r of expectOk(await tp.api.get(rules()), 200)) expectOk(await tp.api.delete(`${rules()}/${r.id}`), 200);
}

describe('SLA rules', () => {
  beforeEach(clear);

  it('POST appends with defaults (use24x7 false, enabled true), answers 201, emits sla_rule.created; GET lists in evaluation order', async () => {
    const res = await tp.api.post(rules(), valid);
    const a = expectOk(res, 201);
    expect(Object.keys(a).sort()).toEqual(RULE_KEYS);
    expect(a).toMatchObject({ ...valid, object: 'sla_rule', use24x7: false, enabled: true, position: 0 });
    expect(a.id).toMatch(/^sla_[A-Za-z0-9]{24}$/);
    const [e] = await ofRequest(res.body.meta.requestId);
    expect(e).toMatchObject({ type: 'sla_rule.created', data: { rule: { id: a.id, position: 0 } } });
    const b = expectOk(await tp.api.post(rules(), { ...valid, name: 'High 24x7', priorityKey: 'high', use24x7: true, enabled: false }), 201);
    expect(b).toMatchObject({ position: 1, use24x7: true, enabled: false });
    expect(expectOk(await tp.api.get(rules()), 200).map((r: any) => r.id)).toEqual([a.id, b.id]);
    expect(expectOk(await tp.api.get(`${rules()}/${b.id}`), 200)).toEqual(b);
  });

  it('PATCH changes the given fields in place (sla_rule.updated with previous); an empty PATCH emits nothing', async () => {
    const a = expectOk(await tp.api.post(rules(), valid), 201);
    const res = await tp.api.patch(`${rules()}/${a.id}`, { responseTimeMinutes: 30, enabled: false });
    expect(expectOk(res, 200)).toMatchObject({ id: a.id, responseTimeMinutes: 30, enabled: false, position: 0, name: 'Urgent' });
    const [e] = await ofRequest(res.body.meta.requestId);
    expect(e).toMatchObject({ type: 'sla_rule.updated', data: { changes: ['responseTimeMinutes', 'enabled'], previous: { responseTimeMinutes: 15, enabled: true } } });
    const none = await tp.api.patch(`${rules()}/${a.id}`, {});
    expectOk(none, 200);
    const marker = await tp.api.post(rules(), { ...valid, name: 'marker' });
    await ofRequest(marker.body.meta.requestId);
    expect(events.filter((x) => x.requestId === none.body.meta.requestId)).toEqual([]);
  });

  it('DELETE moves the later rules up; reorder sets the whole order and emits sla_rule.reordered', async () => {
    const ids: string[] = [];
    for (const name of ['A', 'B', 'C', 'D']) ids.push(expectOk(await tp.api.post(rules(), { ...valid, name }), 201).id);
    const del = await tp.api.delete(`${rules()}/${ids[1]}`);
    expect(expectOk(del, 200)).toEqual({ id: ids[1], deleted: true });
    expect((await ofRequest(del.body.meta.requestId))[0]).toMatchObject({ type: 'sla_rule.deleted', data: { ruleId: ids[1] } });
    expect((await stored()).map((r) => [r._id, r.position])).toEqual([[ids[0], 0], [ids[2], 1], [ids[3], 2]]);
    expectError(await tp.api.get(`${rules()}/${ids[1]}`), 404, 'not_found_error', 'resource_not_found');

    const order = [ids[3], ids[0], ids[2]];
    const res = await tp.api.post(`${rules()}/reorder`, { ruleIds: order });
    expect(expectOk(res, 200).map((r: any) => [r.id, r.position])).toEqual(order.map((id, i) => [id, i]));
    expect((await ofRequest(res.body.meta.requestId))[0]).toMatchObject({ type: 'sla_rule.reordered', data: { ruleIds: order } });
    expect(expectOk(await tp.api.get(rules()), 200).map((r: any) => r.id)).toEqual(order);
  });

  it('the first enabled rule for the ticket\'s priority applies; a priority without a rule has sla null', async () => {
    expectOk(await tp.api.post(rules(), { ...valid, name: 'Off', enabled: false }), 201);
    const on = expectOk(await tp.api.post(rules(), { ...valid, name: 'On', responseTimeMinutes: 5 }), 201);
    expectOk(await tp.api.post(rules(), { ...valid, name: 'Later' }), 201);
    const t = expectOk(await tp.api.post(`${tp.teamPath}/tickets`, { title: 'Down', priority: 'urgent' }), 201);
    expect(t.sla).toMatchObject({ ruleId: on.id, ruleName: 'On', use24x7: false, tier: null, firstResponse: { status: 'active', targetMinutes: 5 }, resolution: { targetMinutes: 240 } });
    const plain = expectOk(await tp.api.post(`${tp.teamPath}/tickets`, { title: 'Question', priority: 'low' }), 201);
    expect(plain.sla).toBeNull();
  });

  const refusals: [string, Record<string, unknown>, string, string][] = [
    ['a missing name', { ...valid, name: undefined }, 'parameter_missing', 'name'],
    ['a missing priorityKey', { ...valid, priorityKey: undefined }, 'parameter_missing', 'priorityKey'],
    ['a missing responseTimeMinutes', { ...valid, responseTimeMinutes: undefined }, 'parameter_missing', 'responseTimeMinutes'],
    ['a missing resolutionTimeMinutes', { ...valid, resolutionTimeMinutes: undefined }, 'parameter_missing', 'resolutionTimeMinutes'],
    ['zero minutes', { ...valid, responseTimeMinutes: 0 }, 'parameter_invalid', 'responseTimeMinutes'],
    ['negative minutes', { ...valid, resolutionTimeMinutes: -5 }, 'parameter_invalid', 'resolutionTimeMinutes'],
    ['fractional minutes', { ...valid, responseTimeMinutes: 1.5 }, 'parameter_invalid', 'responseTimeMinutes'],
    ['minutes as a string', { ...valid, responseTimeMinutes: '15' }, 'parameter_invalid', 'responseTimeMinutes'],
    ['an unknown priority', { ...valid, priorityKey: 'critical' }, 'parameter_invalid', 'priorityKey'],
    ['a blank name', { ...valid, name: '  ' }, 'parameter_invalid', 'name'],
    ['use24x7 not a boolean', { ...valid, use24x7: 'yes' }, 'parameter_invalid', 'use24x7'],
    ['an unknown field', { ...valid, escalateTo: 'boss' }, 'parameter_invalid', 'escalateTo'],
  ];
  it.each(refusals)('POST refuses %s (400) and writes nothing', async (_n, body, code, param) => {
    expectError(await tp.api.post(rules(), JSON.parse(JSON.stringify(body))), 400, 'invalid_request_error', code, param);
    expect(await stored()).toEqual([]);
  });

  it('PATCH and reorder refuse bad input (400) and change nothing', async () => {
    const a = expectOk(await tp.api.post(rules(), valid), 201);
    const b = expectOk(await tp.api.post(rules(), { ...valid, name: 'B' }), 201);
    const before = await stored();
    expectError(await tp.api.patch(`${rules()}/${a.id}`, { resolutionTimeMinutes: 0 }), 400, 'invalid_request_error', 'parameter_invalid', 'resolutionTimeMinutes');
    expectError(await tp.api.patch(`${rules()}/${a.id}`, { position: 3 }), 400, 'invalid_request_error', 'parameter_invalid', 'position');
    expectError(await tp.api.post(`${rules()}/reorder`, { ruleIds: [b.id] }), 400, 'invalid_request_error', 'parameter_invalid', 'ruleIds');
    expectError(await tp.api.post(`${rules()}/reorder`, { ruleIds: [b.id, b.id] }), 400, 'invalid_request_error', 'parameter_invalid', 'ruleIds');
    expectError(await tp.api.post(`${rules()}/reorder`, { ruleIds: [b.id, a.id, 'sla_000000000000000000000000'] }), 400, 'invalid_request_error', 'parameter_invalid', 'ruleIds');
    expectError(await tp.api.post(`${rules()}/reorder`, {}), 400, 'invalid_request_error', 'parameter_missing', 'ruleIds');
    expect(await stored()).toEqual(before);
  });

  it('keys: publishable 403, too few permissions 403, other partition and other team 404', async () => {
    const a = expectOk(await tp.api.post(rules(), valid), 201);
    expectError(await tp.api.get(rules(), { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await tp.api.post(rules(), valid, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    expectError(await tp.api.post(rules(), valid, { key: agent.key }), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await tp.api.patch(`${rules()}/${a.id}`, { enabled: false }, { key: agent.key }), 403, 'authorization_error', 'insufficient_permissions');
    expectOk(await tp.api.get(rules(), { key: agent.key }), 200);
    expectError(await tp.api.get(`${rules()}/${a.id}`, { key: tp.team.sk_live }), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.delete(`${rules()}/${a.id}`, { key: tp.team.sk_live }), 404, 'not_found_error', 'resource_not_found');
    expect(expectOk(await tp.api.get(rules(), { key: tp.team.sk_live }), 200)).toEqual([]);
    expectError(await tp.api.get(`/teams/${tp.otherTeam.teamId}/sla/rules/${a.id}`, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
    expect((await stored()).map((r) => r.enabled)).toEqual([true]);
  });
});
