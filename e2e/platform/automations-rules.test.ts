/** Automation rules through the gateway: CRUD, running on trigger events, the loop guard, the dry run, bad inputs. */
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { TicketingEvents, knownOwner } from './automations-helpers';
import { eventually, expectError, expectOk, ISO } from './helpdesk-helpers';
import { addMember, WorkspaceEvents } from './workspace-helpers';

let tp: TestPlatform;
let log: TicketingEvents;
let owner: string;
const A = () => `${tp.teamPath}/automations`;
const T = () => `${tp.teamPath}/tickets`;
const RULE_ID = /^rule_[A-Za-z0-9]{24}$/;

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await TicketingEvents.start(tp);
  owner = await knownOwner(tp, tp.team);
}, 60_000);
afterAll(async () => tp?.stop(), 60_000);

const create = async (body: Record<string, unknown>, key = tp.team.sk_test) => expectOk(await tp.api.post(A(), body, { key }), 201);
const getRule = async (id: string) => expectOk(await tp.api.get(`${A()}/${id}`), 200);
const executions = async (id: string) => expectOk(await tp.api.get(`${A()}/${id}/executions`), 200);
const ticket = async (id: string) => expectOk(await tp.api.get(`${T()}/${id}`), 200);
const remove = async (id: string) => expectOk(await tp.api.delete(`${A()}/${id}`), 200);

describe('automation rules: CRUD', () => {
  it('creates with defaults, lists in evaluation order, updates, reorders and deletes, each with its event', async () => {
    const a = await create({ name: 'First', triggerEvent: 'ticket.created' });
    expect(a).toEqual({
      id: expect.stringMatching(RULE_ID), object: 'automation_rule', name: 'First', triggerEvent: 'ticket.created', conditions: { all: [], any: [] },
      actions: [], enabled: true, executionCount: 0, position: 0, lastExecutedAt: null, createdAt: expect.stringMatching(ISO), updatedAt: expect.stringMatching(ISO),
    });
    const b = await create({
      name: 'Second', triggerEvent: 'ticket.updated', enabled: false,
      conditions: { any: [{ field: 'tags', operator: 'contains', value: 'vip' }] }, actions: [{ type: 'set_priority', priority: 'high' }],
    });
    expect(b).toMatchObject({ position: 1, enabled: false, conditions: { all: [], any: [{ field: 'tags', operator: 'contains', value: 'vip' }] } });
    expect((expectOk(await tp.api.get(A()), 200) as any[]).map((r) => r.id)).toEqual([a.id, b.id]);

    const moved = expectOk(await tp.api.patch(`${A()}/${b.id}`, { position: 0, name: 'Second, now first' }), 200);
    expect(moved).toMatchObject({ id: b.id, position: 0, name: 'Second, now first' });
    expect((expectOk(await tp.api.get(A()), 200) as any[]).map((r) => [r.id, r.position])).toEqual([[b.id, 0], [a.id, 1]]);
    // A PATCH that changes nothing emits nothing.
    expect(expectOk(await tp.api.patch(`${A()}/${b.id}`, { enabled: false }), 200)).toEqual(moved);

    expect(await remove(b.id)).toEqual({ id: b.id, deleted: true });
    expectError(await tp.api.get(`${A()}/${b.id}`), 404, 'not_found_error', 'resource_not_found');
    expect(await getRule(a.id)).toMatchObject({ position: 0 });

    await log.settle(tp);
    const mine = log.events.filter((e) => e.type.startsWith('automation.') && [a.id, b.id].includes(e.data.automation?.id));
    expect(mine.map((e) => e.type)).toEqual(['automation.created', 'automation.created', 'automation.updated', 'automation.deleted']);
    expect(mine[2].data).toMatchObject({ changes: ['name', 'position'], previous: { name: 'Second', position: 1 } });
    await remove(a.id);
  });
});

describe('automation rules: running on trigger events', () => {
  it('a matching ticket.created runs the actions in the ticket\'s transaction with their events; others are left alone', async () => {
    const rule = await create({
      name: 'Urgent triage', triggerEvent: 'ticket.created',
      conditions: { all: [{ field: 'priority', operator: 'equals', value: 'urgent' }], any: [{ field: 'title', operator: 'contains', value: 'outage' }, { field: 'tags', operator: 'in', value: ['vip'] }] },
      actions: [
        { type: 'assign', memberId: owner }, { type: 'set_status', status: 'open' }, { type: 'add_tags', tags: ['triaged'] },
        { type: 'add_note', content: 'Escalated by automation' }, { type: 'notify_member', memberId: owner, message: 'Urgent ticket' },
      ],
    });
    const hit = expectOk(await tp.api.post(T(), { title: 'Total OUTAGE', priority: 'urgent', tags: ['x'] }), 201);
    const miss = expectOk(await tp.api.post(T(), { title: 'Total outage', priority: 'low' }), 201);

    const done = await eventually('the rule ran', async () => ((await getRule(rule.id)).executionCount === 1 ? ticket(hit.id) : null));
    expect(done).toMatchObject({ status: 'open', assignedTo: owner, tags: ['x', 'triaged'], messageCount: 1 });
    expect(done.messages).toEqual([expect.objectContaining({ content: 'Escalated by automation', isInternal: true, sender: 'system', senderName: 'Automation' })]);
    const [x] = await executions(rule.id);
    expect(x).toEqual({
      id: expect.stringMatching(/^exec_/), object: 'automation_execution', ruleId: rule.id, eventId: expect.stringMatching(/^evt_/), eventType: 'ticket.created',
      ticketId: hit.id, outcome: 'executed', depth: 0, createdAt: expect.stringMatching(ISO),
      actions: ['assign', 'set_status', 'add_tags', 'add_note', 'notify_member'].map((action) => ({ action, success: true, error: null })),
    });
    expect((await getRule(rule.id)).lastExecutedAt).toMatch(ISO);

    await log.settle(tp);
    expect(log.aboutTicket(hit.id).map((e) => e.type)).toEqual([
      'ticket.created', 'ticket.updated', 'ticket.assigned', 'ticket.message_added', 'automation.member_notified', 'automation.executed',
    ]);
    const updated = log.aboutTicket(hit.id)[1];
    expect(updated.data.changes).toEqual(['assignedTo', 'tags', 'status']);
    expect(updated.actor).toEqual({ type: 'system', id: null });
    expect(log.aboutTicket(hit.id)[5].data.automation).toMatchObject({ id: rule.id, executionCount: 1 });
    // The low-priority ticket matched nothing: unchanged, no execution.
    expect(await ticket(miss.id)).toMatchObject({ status: 'new', assignedTo: null, tags: [], messageCount: 0 });
    expect(log.aboutTicket(miss.id).map((e) => e.type)).toEqual(['ticket.created']);
    expect(await executions(rule.id)).toHaveLength(1);

    // notify_member reaches the member's notifications (type `automation`, the rule's message as body).
    const notified = await eventually('the automation notification', async () => {
      const page = expectOk(await tp.api.get(`${tp.teamPath}/notifications?userId=${owner}&type=automation`), 200);
      return page.length ? page : null;
    });
    expect(notified).toEqual([expect.objectContaining({ type: 'automation', body: 'Urgent ticket', ticketId: hit.id, isRead: false })]);

    // A redelivered trigger event runs nothing again (de-duplicated by event id).
    const created = log.aboutTicket(hit.id)[0];
    await tp.platform.ticketing.rules.automations.onEvent(created, hit.id, {});
    expect((await getRule(rule.id)).executionCount).toBe(1);
    expect(await executions(rule.id)).toHaveLength(1);
    await remove(rule.id);
  });

  it('rules run in evaluation order, each on the ticket as the one before left it; disabled rules do not run', async () => {
    const first = await create({ name: 'tag', triggerEvent: 'ticket.message_added', conditions: { all: [{ field: 'message.content', operator: 'contains', value: 'refund' }] }, actions: [{ type: 'add_tags', tags: ['billing'] }] });
    const second = await create({ name: 'prio', triggerEvent: 'ticket.message_added', conditions: { all: [{ field: 'tags', operator: 'contains', value: 'billing' }] }, actions: [{ type: 'set_priority', priority: 'high' }] });
    const off = await create({ name: 'off', triggerEvent: 'ticket.message_added', enabled: false, actions: [{ type: 'set_status', status: 'closed' }] });
    const t = expectOk(await tp.api.post(T(), { title: 'Money' }), 201);
    expectOk(await tp.api.post(`${T()}/${t.id}/messages`, { sender: 'customer', content: 'I want a REFUND' }), 201);
    const after = await eventually('both rules ran', async () => ((await getRule(second.id)).executionCount === 1 ? ticket(t.id) : null));
    expect(after).toMatchObject({ tags: ['billing'], priority: 'high', status: 'new' });
    expect((await getRule(first.id)).executionCount).toBe(1);
    expect((await getRule(off.id)).executionCount).toBe(0);
    for (const r of [first, second, off]) await remove(r.id);
  });

  it('rules triggering each other stop at the depth limit, and the stop is in the execution log', async () => {
    const up = await create({ name: 'up', triggerEvent: 'ticket.updated', conditions: { all: [{ field: 'priority', operator: 'changed_to', value: 'low' }] }, actions: [{ type: 'set_priority', priority: 'high' }] });
    const down = await create({ name: 'down', triggerEvent: 'ticket.updated', conditions: { all: [{ field: 'priority', operator: 'changed_to', value: 'high' }] }, actions: [{ type: 'set_priority', priority: 'low' }] });
    const t = expectOk(await tp.api.post(T(), { title: 'Ping pong' }), 201);
    expectOk(await tp.api.patch(`${T()}/${t.id}`, { priority: 'low' }), 200);
    // depth 0 (the PATCH) → up; depth 1 → down; depth 2 → up; depth 3 → down is stopped.
    const log2 = await eventually('the stop is logged', async () => {
      const xs = await executions(down.id);
      return xs.some((x: any) => x.outcome === 'stopped') ? xs : null;
    });
    expect(log2.map((x: any) => [x.outcome, x.depth, x.actions])).toEqual([['stopped', 3, []], ['executed', 1, [{ action: 'set_priority', success: true, error: null }]]]);
    expect((await executions(up.id)).map((x: any) => [x.outcome, x.depth])).toEqual([['executed', 2], ['executed', 0]]);
    expect((await getRule(up.id)).executionCount).toBe(2);
    expect((await getRule(down.id)).executionCount).toBe(1);
    expect(await ticket(t.id)).toMatchObject({ priority: 'high' });
    for (const r of [up, down]) await remove(r.id);
  });
});

describe('POST /automations/{id}/test (dry run)', () => {
  it('answers per condition and action, and writes nothing and emits nothing', async () => {
    const rule = await create({
      name: 'Dry', triggerEvent: 'ticket.updated',
      conditions: { all: [{ field: 'status', operator: 'equals', value: 'new' }, { field: 'messageCount', operator: 'greater_than', value: 5 }], any: [{ field: 'assignedTo', operator: 'is_empty' }] },
      actions: [{ type: 'set_status', status: 'closed' }, { type: 'assign', memberId: owner }],
    });
    const t = expectOk(await tp.api.post(T(), { title: 'Quiet' }), 201);
    await log.settle(tp);
    const before = log.events.length;
    const res = expectOk(await tp.api.post(`${A()}/${rule.id}/test`, { resourceType: 'ticket', resourceId: t.id }), 200);
    expect(res).toEqual({
      object: 'automation_test', ruleId: rule.id, resourceType: 'ticket', resourceId: t.id, wouldMatch: false,
      conditionResults: {
        all: [{ field: 'status', operator: 'equals', passed: true }, { field: 'messageCount', operator: 'greater_than', passed: false }],
        any: [{ field: 'assignedTo', operator: 'is_empty', passed: true }],
      },
      actionsWouldExecute: [{ action: 'set_status', success: true, error: null }, { action: 'assign', success: true, error: null }],
    });
    await log.settle(tp);
    expect(log.events.slice(before).filter((e) => e.type.startsWith('automation.') || (e.data.ticket?.id ?? e.data.ticketId) === t.id)).toEqual([]);
    expect(await ticket(t.id)).toMatchObject({ status: 'new', assignedTo: null, updatedAt: t.updatedAt });
    expect(await getRule(rule.id)).toMatchObject({ executionCount: 0 });
    expect(await executions(rule.id)).toEqual([]);
    await remove(rule.id);
  });
});

describe('automation rules: bad inputs, other teams and partitions, keys and permissions', () => {
  it('answers each with the documented error and writes nothing', async () => {
    const existing = (expectOk(await tp.api.get(A()), 200) as any[]).map((r) => r.id);
    const post = (body: unknown) => tp.api.post(A(), body);
    expectError(await post({ triggerEvent: 'ticket.created' }), 400, 'invalid_request_error', 'parameter_missing', 'name');
    expectError(await post({ name: 'x' }), 400, 'invalid_request_error', 'parameter_missing', 'triggerEvent');
    expectError(await post({ name: 7, triggerEvent: 'ticket.created' }), 400, 'invalid_request_error', 'parameter_invalid', 'name');
    expectError(await post({ name: 'x', triggerEvent: 'spaceship.launched' }), 400, 'invalid_request_error', 'parameter_invalid', 'triggerEvent');
    expectError(await post({ name: 'x', triggerEvent: 'ticket.created', color: 'red' }), 400, 'invalid_request_error', 'parameter_invalid', 'color');
    expectError(await post({ name: 'x', triggerEvent: 'ticket.created', enabled: 'yes' }), 400, 'invalid_request_error', 'parameter_invalid', 'enabled');
    expectError(await post({ name: 'x', triggerEvent: 'ticket.created', conditions: [] }), 400, 'invalid_request_error', 'parameter_invalid', 'conditions');
    expectError(await post({ name: 'x', triggerEvent: 'ticket.created', conditions: { all: {} } }), 400, 'invalid_request_error', 'parameter_invalid', 'conditions.all');
    expectError(await post({ name: 'x', triggerEvent: 'ticket.created', conditions: { none: [] } }), 400, 'invalid_request_error', 'parameter_invalid', 'conditions.none');
    expectError(await post({ name: 'x', triggerEvent: 'ticket.created', conditions: { all: [{ field: 'status', operator: 'resembles', value: 'new' }] } }), 400, 'invalid_request_error', 'parameter_invalid', 'conditions.all.0.operator');
    expectError(await post({ name: 'x', triggerEvent: 'ticket.created', conditions: { all: [{ field: 'mood', operator: 'equals', value: 'new' }] } }), 400, 'invalid_request_error', 'parameter_invalid', 'conditions.all.0.field');
    expectError(await post({ name: 'x', triggerEvent: 'ticket.created', conditions: { any: [{ field: 'status', operator: 'equals' }] } }), 400, 'invalid_request_error', 'parameter_invalid', 'conditions.any.0.value');
    expectError(await post({ name: 'x', triggerEvent: 'ticket.created', conditions: { any: [{ field: 'status', operator: 'in', value: 'new' }] } }), 400, 'invalid_request_error', 'parameter_invalid', 'conditions.any.0.value');
    expectError(await post({ name: 'x', triggerEvent: 'ticket.created', actions: [{ type: 'launch_rocket' }] }), 400, 'invalid_request_error', 'parameter_invalid', 'actions.0.type');
    expectError(await post({ name: 'x', triggerEvent: 'ticket.created', actions: [{ type: 'set_status', status: 'merged' }] }), 400, 'invalid_request_error', 'parameter_invalid', 'actions.0.status');
    expectError(await post({ name: 'x', triggerEvent: 'ticket.created', actions: [{ type: 'assign' }] }), 400, 'invalid_request_error', 'parameter_missing', 'actions.0.memberId');
    expectError(await post({ name: 'x', triggerEvent: 'ticket.created', actions: [{ type: 'set_priority', priority: 'high', extra: 1 }] }), 400, 'invalid_request_error', 'parameter_invalid', 'actions.0.extra');
    // A member of another team.
    const stranger = await knownOwner(tp, tp.otherTeam);
    expectError(await post({ name: 'x', triggerEvent: 'ticket.created', actions: [{ type: 'assign', memberId: stranger }] }), 400, 'invalid_request_error', 'parameter_invalid', 'actions.0.memberId');

    const rule = await create({ name: 'Mine', triggerEvent: 'ticket.created' });
    expectError(await tp.api.patch(`${A()}/${rule.id}`, { executionCount: 5 }), 400, 'invalid_request_error', 'parameter_invalid', 'executionCount');
    expectError(await tp.api.patch(`${A()}/${rule.id}`, { position: -1 }), 400, 'invalid_request_error', 'parameter_invalid', 'position');
    expectError(await tp.api.post(`${A()}/${rule.id}/test`, { resourceType: 'ticket' }), 400, 'invalid_request_error', 'parameter_missing', 'resourceId');
    expectError(await tp.api.post(`${A()}/${rule.id}/test`, { resourceType: 'customer', resourceId: 'tkt_abcdefghijklmnopqrstuvwx' }), 400, 'invalid_request_error', 'parameter_invalid', 'resourceType');
    expectError(await tp.api.post(`${A()}/${rule.id}/test`, { resourceType: 'ticket', resourceId: 'tkt_abcdefghijklmnopqrstuvwx' }), 404, 'not_found_error', 'resource_not_found', 'resourceId');
    expectError(await tp.api.get(`${A()}/rule_x`), 400, 'invalid_request_error', 'invalid_id_format', 'ruleId');

    // Another team's ticket in the dry run; the rule from another team or the live partition.
    const theirs = expectOk(await tp.api.post(`/teams/${tp.otherTeam.teamId}/tickets`, { title: 'theirs' }, { key: tp.otherTeam.sk_test }), 201);
    expectError(await tp.api.post(`${A()}/${rule.id}/test`, { resourceType: 'ticket', resourceId: theirs.id }), 404, 'not_found_error', 'resource_not_found', 'resourceId');
    const live = expectOk(await tp.api.post(T(), { title: 'live' }, { key: tp.team.sk_live }), 201);
    expectError(await tp.api.post(`${A()}/${rule.id}/test`, { resourceType: 'ticket', resourceId: live.id }), 404, 'not_found_error', 'resource_not_found', 'resourceId');
    for (const key of [tp.team.sk_live]) {
      expectError(await tp.api.get(`${A()}/${rule.id}`, { key }), 404, 'not_found_error', 'resource_not_found');
      expectError(await tp.api.delete(`${A()}/${rule.id}`, { key }), 404, 'not_found_error', 'resource_not_found');
    }
    expect(expectOk(await tp.api.get(A(), { key: tp.team.sk_live }), 200)).toEqual([]);
    expectError(await tp.api.get(`/teams/${tp.otherTeam.teamId}/automations/${rule.id}`, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.get(A(), { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await tp.api.post(A(), { name: 'x', triggerEvent: 'ticket.created' }, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');

    // An agent has no manage_automations.
    const agent = await addMember(tp, await WorkspaceEvents.start(tp), tp.team, 'agent');
    expectError(await tp.api.get(A(), { key: agent.key }), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await tp.api.post(A(), { name: 'x', triggerEvent: 'ticket.created' }, { key: agent.key }), 403, 'authorization_error', 'insufficient_permissions');

    // Nothing of the refused requests was written.
    expect((expectOk(await tp.api.get(A()), 200) as any[]).map((r) => r.id)).toEqual([...existing, rule.id]);
    expect(await getRule(rule.id)).toEqual(rule);
  }, 60_000);
});
