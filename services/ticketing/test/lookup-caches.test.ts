/**
 * The lookups every ticket write or event repeats are kept per process (docs/adr/0045): the harness
 * runs on the in-process bus, so the caches are on. Each case first makes the cache hold the old
 * answer, then changes the setting, and checks that the very next request or event sees the change.
 */
import { randomUUID } from 'node:crypto';
import type { Partition } from '@helpdesk/contracts';
import { envelope } from '@helpdesk/testing';
import { automationTriggerMatch, keepAutomationTriggers } from '../src/automations/triggers';
import { useHarness, type Caller, type Harness } from './helpers';

let h: Harness;
const { api } = useHarness((started) => (h = started));

const team = (): Caller & { teamId: string } => ({ teamId: randomUUID() });
const ok = (r: { status: number; body: any }, status: number) => {
  expect({ status: r.status, body: r.body }).toMatchObject({ status });
  return r.body.data;
};
const createTicket = async (as: Caller, body: Record<string, unknown> = {}) => ok(await api('POST', '/teams/{team}/tickets', { as, body: { title: 'T', priority: 'urgent', ...body } }), 201);
const stored = (id: string) => h.svc.conn.collection('tickets').findOne({ _id: id } as any);

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

it('the service runs with its lookups kept (in-process bus: its sole instance)', () => {
  expect(h.bus.processLocal).toBe(true);
});

describe('SLA rules', () => {
  it('a rule created, disabled, enabled or deleted applies to the very next ticket', async () => {
    const as = team();
    // No rule yet: the partition's (empty) rules are now kept.
    expect((await stored((await createTicket(as)).id))!.sla).toBeNull();
    const rule = ok(await api('POST', '/teams/{team}/sla/rules', { as, body: { name: 'Urgent', priorityKey: 'urgent', responseTimeMinutes: 15, resolutionTimeMinutes: 240, use24x7: true } }), 201);
    expect((await stored((await createTicket(as)).id))!.sla).toMatchObject({ ruleId: rule.id });

    ok(await api('PATCH', `/teams/{team}/sla/rules/${rule.id}`, { as, body: { enabled: false } }), 200);
    expect((await stored((await createTicket(as)).id))!.sla).toBeNull();
    ok(await api('PATCH', `/teams/{team}/sla/rules/${rule.id}`, { as, body: { enabled: true } }), 200);
    expect((await stored((await createTicket(as)).id))!.sla).toMatchObject({ ruleId: rule.id });

    // Another priority's rule first in order: urgent tickets still take the urgent one.
    const other = ok(await api('POST', '/teams/{team}/sla/rules', { as, body: { name: 'Low', priorityKey: 'low', responseTimeMinutes: 60, resolutionTimeMinutes: 600, use24x7: true } }), 201);
    ok(await api('POST', '/teams/{team}/sla/rules/reorder', { as, body: { ruleIds: [other.id, rule.id] } }), 200);
    expect((await stored((await createTicket(as)).id))!.sla).toMatchObject({ ruleId: rule.id });
    expect((await stored((await createTicket(as, { priority: 'low' })).id))!.sla).toMatchObject({ ruleId: other.id });

    expect((await api('DELETE', `/teams/{team}/sla/rules/${rule.id}`, { as })).status).toBe(200);
    expect((await stored((await createTicket(as)).id))!.sla).toBeNull();
  });

  it('a rule of one partition is not the other partition’s', async () => {
    const test = team();
    const live = { ...test, mode: 'live' as const };
    expect((await stored((await createTicket(live)).id))!.sla).toBeNull();
    ok(await api('POST', '/teams/{team}/sla/rules', { as: test, body: { name: 'Urgent', priorityKey: 'urgent', responseTimeMinutes: 15, resolutionTimeMinutes: 240, use24x7: true } }), 201);
    expect((await stored((await createTicket(live)).id))!.sla).toBeNull();
    expect((await stored((await createTicket(test)).id))!.sla).not.toBeNull();
  });
});

describe('automations', () => {
  const executions = async (teamId: string) => h.svc.conn.collection('automation_executions').countDocuments({ teamId });

  it('a rule created or enabled runs on the very next event; disabled or deleted, it does not', async () => {
    const as = team();
    // No rule: the partition's trigger types (none) are now kept.
    const first = await createTicket(as, { priority: 'low' });
    await until('the first ticket.created consumed', async () => (await h.svc.relay.drain(), await h.bus.idle(), true));
    expect((await stored(first.id))!.priority).toBe('low');

    const rule = ok(await api('POST', '/teams/{team}/automations', { as, body: { name: 'Bump', triggerEvent: 'ticket.created', actions: [{ type: 'set_priority', priority: 'high' }] } }), 201);
    const second = await createTicket(as, { priority: 'low' });
    await until('the rule ran on the next ticket', async () => (await stored(second.id))!.priority === 'high');

    ok(await api('PATCH', `/teams/{team}/automations/${rule.id}`, { as, body: { enabled: false } }), 200);
    const third = await createTicket(as, { priority: 'low' });
    await h.svc.relay.drain();
    await h.bus.idle();
    expect((await stored(third.id))!.priority).toBe('low');

    ok(await api('PATCH', `/teams/{team}/automations/${rule.id}`, { as, body: { enabled: true } }), 200);
    const fourth = await createTicket(as, { priority: 'low' });
    await until('the rule ran again once enabled', async () => (await stored(fourth.id))!.priority === 'high');

    const before = await executions(as.teamId);
    expect((await api('DELETE', `/teams/{team}/automations/${rule.id}`, { as })).status).toBe(200);
    const fifth = await createTicket(as, { priority: 'low' });
    await h.svc.relay.drain();
    await h.bus.idle();
    expect((await stored(fifth.id))!.priority).toBe('low');
    expect(await executions(as.teamId)).toBeLessThanOrEqual(before);
  });
});

describe('automation trigger check', () => {
  it('with replicas (nothing kept): the events delivered together are answered by one read per partition, as the kept check answers them', async () => {
    const a = { ...team(), mode: 'test' as const };
    const aLive = { ...a, mode: 'live' as const };
    const b = { ...team(), mode: 'test' as const };
    ok(await api('POST', '/teams/{team}/automations', { as: a, body: { name: 'Bump', triggerEvent: 'ticket.created', actions: [{ type: 'set_priority', priority: 'high' }] } }), 201);
    const off = ok(await api('POST', '/teams/{team}/automations', { as: a, body: { name: 'Off', triggerEvent: 'ticket.closed', actions: [{ type: 'set_priority', priority: 'low' }] } }), 201);
    ok(await api('PATCH', `/teams/{team}/automations/${off.id}`, { as: a, body: { enabled: false } }), 200);
    ok(await api('POST', '/teams/{team}/automations', { as: b, body: { name: 'B', triggerEvent: 'ticket.updated', actions: [{ type: 'set_priority', priority: 'high' }] } }), 201);

    const { models } = h.svc.rules;
    const kept = automationTriggerMatch(models, keepAutomationTriggers(true));
    const replicas = automationTriggerMatch(models, keepAutomationTriggers(false));
    const scope = (c: { teamId: string; mode: Partition }) => ({ teamId: c.teamId, mode: c.mode });
    const questions: [ReturnType<typeof scope>, string][] = [
      [scope(a), 'ticket.created'], [scope(a), 'ticket.closed'], [scope(a), 'ticket.updated'], [scope(a), 'ticket.created'],
      [scope(aLive), 'ticket.created'], [scope(b), 'ticket.updated'], [scope(b), 'ticket.created'],
    ];
    const expected = [true, false, false, true, false, true, false];

    const db = Object.getPrototypeOf(h.svc.conn.db) as { command: (...args: unknown[]) => unknown };
    const command = jest.spyOn(db, 'command');
    try {
      expect(await Promise.all(questions.map(([s, t]) => replicas(s, t)))).toEqual(expected);
      const reads = command.mock.calls.filter(([cmd]) => (cmd as { find?: string }).find === 'automations');
      expect(reads).toHaveLength(3); // a's test partition, a's live one, b's
    } finally {
      command.mockRestore();
    }
    expect(await Promise.all(questions.map(([s, t]) => kept(s, t)))).toEqual(expected);

    // Nothing kept: a rule enabled is seen by the very next question.
    ok(await api('PATCH', `/teams/{team}/automations/${off.id}`, { as: a, body: { enabled: true } }), 200);
    expect(await replicas(scope(a), 'ticket.closed')).toBe(true);
  });
});

describe('custom field definitions (the projection of workspace’s events)', () => {
  const definition = (id: string, required: boolean) => ({
    id, object: 'custom_field' as const, contentType: 'ticket' as const, label: 'Order', fieldType: 'text' as const,
    defaultValue: null, options: null, minValue: null, maxValue: null, required, sortOrder: 0, createdAt: new Date().toISOString(),
  });

  it('a definition created, made required or deleted is checked on the very next write', async () => {
    const as = team();
    const id = `cf_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    // No definition: `order` is unknown, and the (empty) definitions are now kept.
    expect((await api('POST', '/teams/{team}/tickets', { as, body: { title: 'T', customFields: { [id]: 'A-1' } } })).status).toBe(400);

    await h.publish(envelope('custom_field.created', { customField: definition(id, false), rev: 1 }, { teamId: as.teamId, mode: 'live' }));
    expect((await createTicket(as, { customFields: { [id]: 'A-1' } })).customFields).toEqual({ [id]: 'A-1' });
    expect((await api('POST', '/teams/{team}/tickets', { as, body: { title: 'T' } })).status).toBe(201);

    await h.publish(envelope('custom_field.updated', { customField: definition(id, true), rev: 2, changes: ['required'], previous: { required: false } }, { teamId: as.teamId, mode: 'live' }));
    const refused = await api('POST', '/teams/{team}/tickets', { as, body: { title: 'T' } });
    expect({ status: refused.status, param: refused.body.error?.param }).toEqual({ status: 400, param: `customFields.${id}` });

    await h.publish(envelope('custom_field.deleted', { customField: definition(id, true), rev: 3 }, { teamId: as.teamId, mode: 'live' }));
    expect((await api('POST', '/teams/{team}/tickets', { as, body: { title: 'T' } })).status).toBe(201);
    expect((await api('POST', '/teams/{team}/tickets', { as, body: { title: 'T', customFields: { [id]: 'A-1' } } })).status).toBe(400);
  });
});
