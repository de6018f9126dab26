/** GET /analytics and /analytics/agents through the gateway, on ticketing's controllable clock. */
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { knownOwner } from './automations-helpers';
import { eventually, expectError, expectOk } from './helpdesk-helpers';
import { addMember, WorkspaceEvents } from './workspace-helpers';

let tp: TestPlatform;
let team: TeamKeys;
let owner: string;
const P = () => `/teams/${team.teamId}`;
const at = (iso: string) => {
  tp.platform.ticketing.rules.clock.now = () => new Date(iso);
};
const get = async (path: string, key = team.sk_test) => expectOk(await tp.api.get(`${P()}${path}`, { key }), 200);
const post = async (path: string, body: unknown, status = 201) => expectOk(await tp.api.post(`${P()}${path}`, body, { key: team.sk_test }), status);
const patch = async (path: string, body: unknown) => expectOk(await tp.api.patch(`${P()}${path}`, body, { key: team.sk_test }), 200);

beforeAll(async () => {
  tp = await startTestPlatform();
  team = await tp.createTeam('Analytics Co');
  owner = await knownOwner(tp, team);
  // An SLA for high priority around the clock: 10 minutes to respond, 60 to resolve.
  await post('/sla/rules', { name: 'High', priorityKey: 'high', responseTimeMinutes: 10, resolutionTimeMinutes: 60, use24x7: true });

  // Monday 2026-03-02: four tickets in the test partition, one in live.
  at('2026-03-02T09:00:00.000Z');
  const gold = await post('/tickets', { title: 'Gold', priority: 'high' });
  const slow = await post('/tickets', { title: 'Slow', priority: 'high' });
  await post('/tickets', { title: 'Waiting', priority: 'low' });
  expectOk(await tp.api.post(`${P()}/tickets`, { title: 'Live one', priority: 'urgent' }, { key: team.sk_live }), 201);
  at('2026-03-02T09:01:00.000Z');
  await patch(`/tickets/${gold.id}`, { assignedTo: owner });
  await patch(`/tickets/${slow.id}`, { assignedTo: owner });

  // gold: answered after 5 minutes, resolved after 20 (within half its target); slow: answered after 30 (late), closed after 2 hours (late).
  at('2026-03-02T09:05:00.000Z');
  await post(`/tickets/${gold.id}/messages`, { content: 'On it', sender: 'agent' });
  await post(`/tickets/${gold.id}/messages`, { content: 'internal', sender: 'agent', isInternal: true });
  at('2026-03-02T09:20:00.000Z');
  await patch(`/tickets/${gold.id}`, { status: 'resolved' });
  at('2026-03-02T09:30:00.000Z');
  await post(`/tickets/${slow.id}/messages`, { content: 'Sorry for the wait', sender: 'agent' });
  at('2026-03-02T11:00:00.000Z');
  await patch(`/tickets/${slow.id}`, { status: 'closed' });
  at('2026-03-03T12:00:00.000Z');
  const pending = await post('/tickets', { title: 'Pending' });
  await patch(`/tickets/${pending.id}`, { status: 'pending' });
  at('2026-03-04T12:00:00.000Z');
}, 90_000);
afterAll(async () => tp?.stop(), 60_000);

/** Waits until the facts caught up with every write above (they are kept from ticket events). */
const settled = () =>
  eventually('analytics caught up', async () => {
    const a = await get('/analytics');
    return a.resolutionTime.samplesCount === 2 && a.responseTime.samplesCount === 2 && a.statusBreakdown.pending === 1 ? a : null;
  });

describe('GET /analytics', () => {
  it('the overview of the last week (the defaults): counts by status now, priorities, averages', async () => {
    expect(await settled()).toEqual({
      object: 'analytics', type: 'overview', period: 'week', startDate: '2026-02-25T12:00:00.000Z', endDate: '2026-03-04T12:00:00.000Z',
      tickets: { total: 4, new: 1, closed: 2, open: 1 },
      priorities: { low: 1, normal: 1, high: 2, urgent: 0 },
      statusBreakdown: { new: 1, pending: 1, resolved: 1, closed: 1 },
      // (5 + 30) / 2 minutes; (20 + 120) / 2 minutes.
      responseTime: { avgSeconds: 1050, samplesCount: 2 },
      resolutionTime: { avgSeconds: 4200, samplesCount: 2 },
    });
  });

  it('the live partition sees only its own ticket; an empty range has null averages', async () => {
    const live = await eventually('live facts', async () => {
      const a = await get('/analytics', team.sk_live);
      return a.tickets.total === 1 ? a : null;
    });
    expect(live).toMatchObject({ tickets: { total: 1, new: 1, closed: 0, open: 0 }, priorities: { low: 0, normal: 0, high: 0, urgent: 1 } });
    expect(live.responseTime).toEqual({ avgSeconds: null, samplesCount: 0 });
    const empty = await get('/analytics?period=custom&startDate=2025-01-01&endDate=2025-01-31');
    expect(empty).toMatchObject({ tickets: { total: 0, new: 0, closed: 0, open: 0 }, statusBreakdown: {}, responseTime: { avgSeconds: null, samplesCount: 0 }, resolutionTime: { avgSeconds: null, samplesCount: 0 } });
    expect(empty).toMatchObject({ startDate: '2025-01-01T00:00:00.000Z', endDate: '2025-02-01T00:00:00.000Z' });
  });

  it('type=timeseries adds one point per UTC day, days without tickets included', async () => {
    await settled();
    const a = await get('/analytics?type=timeseries&period=custom&startDate=2026-03-01&endDate=2026-03-04');
    expect(a).toMatchObject({ type: 'timeseries', period: 'custom', tickets: { total: 4 } });
    expect(a.series).toEqual([
      { date: '2026-03-01', created: 0, closed: 0 },
      { date: '2026-03-02', created: 3, closed: 2 },
      { date: '2026-03-03', created: 1, closed: 0 },
      { date: '2026-03-04', created: 0, closed: 0 },
    ]);
    // The last 24 hours start at the pending ticket's creation (inclusive).
    expect((await get('/analytics?period=day')).tickets).toEqual({ total: 1, new: 0, closed: 0, open: 1 });
    expect((await get('/analytics?period=month')).tickets.total).toBe(4);
  });
});

describe('GET /analytics/agents', () => {
  it('per assignee: assigned, closed, averages and SLA tiers', async () => {
    await settled();
    const names = expectOk(await tp.api.get(`${P()}/members`, { key: team.sk_test }), 200);
    const a = await get('/analytics/agents');
    expect(a).toEqual({
      object: 'analytics.agents', startDate: '2026-02-02T12:00:00.000Z', endDate: '2026-03-04T12:00:00.000Z',
      data: [{
        agentId: owner, name: names.find((m: any) => m.id === owner).name, ticketsAssigned: 2, ticketsClosed: 2,
        avgResponseSeconds: 1050, avgResolutionSeconds: 4200, slaTiers: { gold: 1, silver: 0, bronze: 0, missed: 1 },
      }],
    });
    expect((await get('/analytics/agents?startDate=2026-03-03&endDate=2026-03-04')).data).toEqual([]);
    expect((await get('/analytics/agents', team.sk_live)).data).toEqual([]);
  });
});

describe('analytics: bad inputs, keys and permissions', () => {
  it('answers each with the documented error', async () => {
    const bad = async (qs: string, code: string, param: string) => expectError(await tp.api.get(`${P()}/analytics${qs}`, { key: team.sk_test }), 400, 'invalid_request_error', code, param);
    await bad('?type=pie', 'parameter_invalid', 'type');
    await bad('?period=decade', 'parameter_invalid', 'period');
    await bad('?period=custom&endDate=2026-03-04', 'parameter_missing', 'startDate');
    await bad('?period=custom&startDate=2026-03-04', 'parameter_missing', 'endDate');
    await bad('?startDate=2026-03-01', 'parameter_invalid', 'startDate');
    await bad('?period=custom&startDate=2026-03-04&endDate=2026-03-01', 'parameter_invalid', 'endDate');
    await bad('?period=custom&startDate=2024-01-01&endDate=2026-03-01', 'parameter_invalid', 'startDate');
    await bad('?period=custom&startDate=yesterday&endDate=2026-03-01', 'parameter_invalid', 'startDate');
    await bad('?granularity=hour', 'parameter_invalid', 'granularity');
    expectError(await tp.api.get(`${P()}/analytics/agents?endDate=soon`, { key: team.sk_test }), 400, 'invalid_request_error', 'parameter_invalid', 'endDate');
    expectError(await tp.api.get(`${P()}/analytics`, { key: team.pk_test }), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await tp.api.get(`${P()}/analytics/agents`, { key: team.pk_live }), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await tp.api.get(`${P()}/analytics`, { key: tp.otherTeam.sk_test }), 403, 'authorization_error', 'team_access_denied');
    const agent = await addMember(tp, await WorkspaceEvents.start(tp), team, 'agent');
    expectError(await tp.api.get(`${P()}/analytics`, { key: agent.key }), 403, 'authorization_error', 'insufficient_permissions');
    const spectator = await addMember(tp, await WorkspaceEvents.start(tp), team, 'spectator');
    expect(expectOk(await tp.api.get(`${P()}/analytics`, { key: spectator.key }), 200)).toMatchObject({ object: 'analytics' });
  }, 60_000);
});
