import type { EventEnvelope } from '@helpdesk/contracts';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { eventually, expectOk } from './helpdesk-helpers';
import { addMember, WorkspaceEvents, type TestMember } from './workspace-helpers';

/**
 * SLA clocks through the gateway (docs/adr/0026), on ticketing's controllable clock: the team works
 * 09:00–18:00 on weekdays in New York; an urgent ticket gets 10 minutes to the first response and
 * 60 to resolution, a low one 10 minutes around the clock.
 */
let tp: TestPlatform;
let assignee: TestMember;
const slaEvents: EventEnvelope<any>[] = [];
const tickets = () => `${tp.teamPath}/tickets`;
const setNow = (iso: string) => {
  tp.platform.ticketing.rules.clock.now = () => new Date(iso);
};

beforeAll(async () => {
  tp = await startTestPlatform();
  await tp.observe('ticketing', ['sla.#'], async (e) => void slaEvents.push(e as EventEnvelope<any>));
  const ws = await WorkspaceEvents.start(tp);
  assignee = await addMember(tp, ws, tp.team, 'agent');
  const weekday = { enabled: true, start: '09:00', end: '18:00' };
  expectOk(
    await tp.api.patch(`${tp.teamPath}/settings/business-hours`, {
      enabled: true,
      timezone: 'America/New_York',
      schedule: { monday: weekday, tuesday: weekday, wednesday: weekday, thursday: weekday, friday: weekday },
    }),
    200,
  );
  const projection = tp.platform.ticketing.conn.collection('business_hours');
  await eventually('business hours in ticketing', async () => (await projection.findOne({ _id: tp.team.teamId as any, enabled: true })) ?? null);
  await eventually('member in ticketing', async () => (await tp.platform.ticketing.conn.collection('member_refs').findOne({ _id: assignee.id as any })) ?? null);
  const rule = (body: Record<string, unknown>) => tp.api.post(`${tp.teamPath}/sla/rules`, body);
  expectOk(await rule({ name: 'Urgent', priorityKey: 'urgent', responseTimeMinutes: 10, resolutionTimeMinutes: 60 }), 201);
  expectOk(await rule({ name: 'Low, around the clock', priorityKey: 'low', responseTimeMinutes: 10, resolutionTimeMinutes: 600, use24x7: true }), 201);
  expectOk(await rule({ name: 'High', priorityKey: 'high', responseTimeMinutes: 120, resolutionTimeMinutes: 480 }), 201);
}, 120_000);
afterAll(async () => tp?.stop(), 60_000);

const create = async (body: Record<string, unknown>) => expectOk(await tp.api.post(tickets(), { title: 'Printer on fire', ...body }), 201);
const patch = async (id: string, body: Record<string, unknown>) => expectOk(await tp.api.patch(`${tickets()}/${id}`, body), 200);
const breachesOf = async (id: string) => {
  await tp.platform.ticketing.relay.drain();
  return slaEvents.filter((e) => e.type === 'sla.breached' && e.data.ticket.id === id);
};

describe('SLA due times in business hours', () => {
  it('Friday 17:55 with a 10-minute target is due Monday 09:05 New York time (EST, no DST change)', async () => {
    setNow('2026-01-16T22:55:00Z'); // Friday 17:55 EST
    const t = await create({ priority: 'urgent' });
    expect(t.sla.firstResponse).toMatchObject({ status: 'active', targetMinutes: 10, dueAt: '2026-01-19T14:05:00.000Z', achievedAt: null, breachedAt: null });
    // 5 minutes on Friday, 55 on Monday.
    expect(t.sla.resolution.dueAt).toBe('2026-01-19T14:55:00.000Z');
  });

  it('across the DST change (Sunday 8 March 2026) Monday 09:05 is EDT: 13:05Z', async () => {
    setNow('2026-03-06T22:55:00Z'); // Friday 17:55 EST
    const t = await create({ priority: 'urgent' });
    expect(t.sla.firstResponse.dueAt).toBe('2026-03-09T13:05:00.000Z');
    expect(expectOk(await tp.api.get(`${tickets()}/${t.id}`), 200).sla.firstResponse.dueAt).toBe('2026-03-09T13:05:00.000Z');
  });

  it('a 24x7 rule counts every minute: Friday 17:55 + 10 is Friday 18:05', async () => {
    setNow('2026-01-16T22:55:00Z');
    const t = await create({ priority: 'low' });
    expect(t.sla).toMatchObject({ use24x7: true, firstResponse: { dueAt: '2026-01-16T23:05:00.000Z' } });
  });
});

describe('SLA clock moves', () => {
  it('pending pauses, reopening resumes with the minutes left; an agent reply and resolution within half the target: gold', async () => {
    setNow('2026-01-19T15:00:00Z'); // Monday 10:00 EST
    const t = await create({ priority: 'urgent', messages: [{ sender: 'customer', content: 'It is on fire' }] });
    setNow('2026-01-19T15:04:00Z');
    expect((await patch(t.id, { status: 'pending' })).sla.firstResponse).toMatchObject({ status: 'paused', dueAt: null });
    setNow('2026-01-19T17:00:00Z'); // 12:00: two paused hours do not count
    expect((await patch(t.id, { status: 'open' })).sla.firstResponse).toMatchObject({ status: 'active', dueAt: '2026-01-19T17:06:00.000Z' });
    setNow('2026-01-19T17:03:00Z');
    expectOk(await tp.api.post(`${tickets()}/${t.id}/messages`, { content: 'internal only', isInternal: true }), 201);
    expect(expectOk(await tp.api.get(`${tickets()}/${t.id}`), 200).sla.firstResponse.status).toBe('active');
    expectOk(await tp.api.post(`${tickets()}/${t.id}/messages`, { content: 'We are on it' }), 201);
    const replied = expectOk(await tp.api.get(`${tickets()}/${t.id}`), 200).sla;
    expect(replied.firstResponse).toMatchObject({ status: 'met', achievedAt: '2026-01-19T17:03:00.000Z', elapsedMinutes: 7 });
    expect(replied.tier).toBeNull();
    setNow('2026-01-19T17:20:00Z');
    const resolved = (await patch(t.id, { status: 'resolved' })).sla;
    expect(resolved.resolution).toMatchObject({ status: 'met', elapsedMinutes: 24 });
    expect(resolved.tier).toBe('gold');
    expect(await breachesOf(t.id)).toEqual([]);
  });

  it('a priority change re-targets, keeping the minutes used; a priority without a rule drops the clock', async () => {
    setNow('2026-01-20T15:00:00Z'); // Tuesday 10:00 EST
    const t = await create({ priority: 'normal' });
    expect(t.sla).toBeNull();
    const urgent = (await patch(t.id, { priority: 'urgent' })).sla;
    expect(urgent.firstResponse.dueAt).toBe('2026-01-20T15:10:00.000Z');
    setNow('2026-01-20T15:05:00Z');
    const high = (await patch(t.id, { priority: 'high' })).sla;
    expect(high).toMatchObject({ ruleName: 'High', firstResponse: { targetMinutes: 120, dueAt: '2026-01-20T17:00:00.000Z' } });
    expect((await patch(t.id, { priority: 'normal' })).sla).toBeNull();
  });
});

describe('merge', () => {
  it('a merged source\'s clocks stop: paused with the minutes used, no due time, never breached by a scan', async () => {
    setNow('2026-01-23T15:00:00Z'); // Friday 10:00 EST
    const target = await create({ priority: 'urgent', title: 'Target' });
    const source = await create({ priority: 'urgent', title: 'Duplicate' });
    setNow('2026-01-23T15:03:00Z');
    expectOk(await tp.api.post(`${tickets()}/${target.id}/merge`, { sourceTicketIds: [source.id] }), 200);
    const merged = expectOk(await tp.api.get(`${tickets()}/${source.id}`), 200);
    expect(merged).toMatchObject({ status: 'merged', sla: { firstResponse: { status: 'paused', dueAt: null }, resolution: { status: 'paused', dueAt: null } } });
    setNow('2026-01-26T15:00:00Z');
    await tp.platform.ticketing.rules.slaBreaches.scanDue();
    expect(await breachesOf(source.id)).toEqual([]);
  });
});

describe('breach detection', () => {
  it('the scan emits sla.breached once per target, even from two replicas scanning at once; the assignee is notified', async () => {
    setNow('2026-01-21T15:00:00Z'); // Wednesday 10:00 EST
    const t = await create({ priority: 'urgent' });
    await patch(t.id, { assignedTo: assignee.id });
    setNow('2026-01-21T15:10:00Z');
    const scan = tp.platform.ticketing.rules.slaBreaches;
    await Promise.all([scan.scanDue(), scan.scanDue()]);
    await scan.scanDue();
    const [breach, ...more] = await eventually('sla.breached', async () => {
      const found = await breachesOf(t.id);
      return found.length ? found : null;
    });
    expect(more).toEqual([]);
    expect(breach).toMatchObject({
      type: 'sla.breached',
      actor: { type: 'system', id: null },
      data: { target: 'first_response', dueAt: '2026-01-21T15:10:00.000Z', breachedAt: '2026-01-21T15:10:00.000Z', ticket: { id: t.id, sla: { firstResponse: { status: 'breached' } } } },
    });
    const read = expectOk(await tp.api.get(`${tickets()}/${t.id}`), 200);
    expect(read.sla.firstResponse).toMatchObject({ status: 'breached', breachedAt: '2026-01-21T15:10:00.000Z' });
    expect(read.sla.resolution.status).toBe('active');

    // A reply after the breach is recorded, but the target stays breached; resolving in time: bronze.
    setNow('2026-01-21T15:20:00Z');
    expectOk(await tp.api.post(`${tickets()}/${t.id}/messages`, { content: 'Sorry for the wait' }), 201);
    const resolved = (await patch(t.id, { status: 'closed' })).sla;
    expect(resolved.firstResponse).toMatchObject({ status: 'breached', achievedAt: '2026-01-21T15:20:00.000Z' });
    expect(resolved.tier).toBe('bronze');
    expect(await breachesOf(t.id)).toHaveLength(1);

    const inbox = await eventually('sla_breached notification', async () => {
      const list = expectOk(await tp.api.get(`${tp.teamPath}/notifications?userId=${assignee.id}&type=sla_breached`), 200);
      return list.find((n: any) => n.type === 'sla_breached' && n.ticketId === t.id) ?? null;
    });
    expect(inbox).toMatchObject({ type: 'sla_breached', memberId: assignee.id });
  });

  it('a breach found by a write (no scan yet) is emitted once too, and a missed resolution is tier missed', async () => {
    setNow('2026-01-22T15:00:00Z'); // Thursday 10:00 EST
    const t = await create({ priority: 'urgent' });
    setNow('2026-01-22T17:00:00Z'); // both targets passed
    const closed = (await patch(t.id, { status: 'resolved' })).sla;
    expect(closed).toMatchObject({ tier: 'missed', firstResponse: { status: 'breached' }, resolution: { status: 'breached' } });
    await tp.platform.ticketing.rules.slaBreaches.scanDue();
    const found = await eventually('two breaches', async () => {
      const list = await breachesOf(t.id);
      return list.length >= 2 ? list : null;
    });
    expect(found.map((e) => e.data.target).sort()).toEqual(['first_response', 'resolution']);
  });
});
