import { startTestPlatform, type TestPlatform } from '../support/platform';
import { EventLog, eventually, expectError, expectOk, settle } from './helpdesk-helpers';
import { addMember, WorkspaceEvents, type TestMember } from './workspace-helpers';

let tp: TestPlatform;
let log: EventLog;
let agent: TestMember;
let spectator: TestMember;
let outsider: TestMember;
const path = () => `${tp.teamPath}/tickets`;

/** Waits until ticketing's projection knows the member (member.joined reached it). */
const projected = (memberId: string) =>
  eventually(`member ${memberId} in ticketing`, async () => (await tp.platform.ticketing.conn.collection('member_refs').findOne({ _id: memberId as any })) ?? null);

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await EventLog.start(tp);
  const ws = await WorkspaceEvents.start(tp);
  agent = await addMember(tp, ws, tp.team, 'agent');
  spectator = await addMember(tp, ws, tp.team, 'spectator');
  outsider = await addMember(tp, ws, tp.otherTeam, 'agent', tp.otherTeam.sk_test);
  await Promise.all([agent, spectator, outsider].map((m) => projected(m.id)));
}, 120_000);
afterAll(async () => tp?.stop(), 60_000);

async function create(body: Record<string, unknown> = {}): Promise<any> {
  const t = expectOk(await tp.api.post(path(), { title: 'Needs an owner', ...body }), 201);
  await tp.platform.ticketing.relay.drain();
  await log.waitFor(t.id, 1);
  return t;
}
const stored = (id: string) => tp.platform.ticketing.conn.collection('tickets').findOne({ _id: id as any });

describe('assignment (PATCH /tickets/{id} assignedTo)', () => {
  it('assigns a member: answers and stores it, emits ticket.updated (assignedTo) and ticket.assigned; null unassigns', async () => {
    const t = await create();
    const res = await tp.api.patch(`${path()}/${t.id}`, { assignedTo: agent.id });
    expect(expectOk(res, 200)).toMatchObject({ id: t.id, assignedTo: agent.id });
    expect((await stored(t.id))?.assignedTo).toBe(agent.id);
    await tp.platform.ticketing.relay.drain();
    const events = await log.waitFor(t.id, 3);
    expect(events.map((e) => e.type)).toEqual(['ticket.created', 'ticket.updated', 'ticket.assigned']);
    expect(events[1]!.data).toMatchObject({ changes: ['assignedTo'], previous: { assignedTo: null } });
    expect(events[2]).toMatchObject({ requestId: res.body.meta.requestId, data: { assignedTo: agent.id, previousAssignedTo: null, ticket: { id: t.id, assignedTo: agent.id } } });

    expectOk(await tp.api.patch(`${path()}/${t.id}`, { assignedTo: null }), 200);
    await tp.platform.ticketing.relay.drain();
    const after = await log.waitFor(t.id, 5);
    expect(after[4]).toMatchObject({ type: 'ticket.assigned', data: { assignedTo: null, previousAssignedTo: agent.id } });
    // The same assignee again changes nothing and emits nothing.
    expectOk(await tp.api.patch(`${path()}/${t.id}`, { assignedTo: null }), 200);
    await settle(tp, log);
    expect(log.forTicket(t.id)).toHaveLength(5);
  });

  it('the list filter assignedTo finds a member\'s tickets, and `none` the unassigned ones', async () => {
    const mine = await create({ title: 'Filter mine' });
    const free = await create({ title: 'Filter free' });
    expectOk(await tp.api.patch(`${path()}/${mine.id}`, { assignedTo: spectator.id }), 200);
    const assigned = expectOk(await tp.api.get(`${path()}?assignedTo=${spectator.id}`), 200);
    expect(assigned.map((t: any) => t.id)).toEqual([mine.id]);
    const unassigned = expectOk(await tp.api.get(`${path()}?assignedTo=none&pageSize=100`), 200).map((t: any) => t.id);
    expect(unassigned).toContain(free.id);
    expect(unassigned).not.toContain(mine.id);
  });

  it.each([
    ['a member of another team', () => outsider.id, 'parameter_invalid'],
    ['an unknown member id', () => 'mem_000000000000000000000000', 'parameter_invalid'],
    ['not a member id', () => 'cus_000000000000000000000000', 'parameter_invalid'],
    ['a number', () => 42, 'parameter_invalid'],
  ])('refuses %s with 400 param assignedTo, nothing written or emitted', async (_n, value, code) => {
    const t = await create();
    const before = await stored(t.id);
    expectError(await tp.api.patch(`${path()}/${t.id}`, { assignedTo: value() }), 400, 'invalid_request_error', code, 'assignedTo');
    expect(await stored(t.id)).toEqual(before);
    await settle(tp, log);
    expect(log.forTicket(t.id)).toHaveLength(1);
  });

  it('another team or partition: 404; publishable key and too few permissions: 403; nothing changes', async () => {
    const t = await create();
    const body = { assignedTo: agent.id };
    expectError(await tp.api.patch(`/teams/${tp.otherTeam.teamId}/tickets/${t.id}`, body, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.patch(`${path()}/${t.id}`, body, { key: tp.team.sk_live }), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.patch(`${path()}/${t.id}`, body, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    expectError(await tp.api.patch(`${path()}/${t.id}`, body, { key: spectator.key }), 403, 'authorization_error', 'insufficient_permissions');
    expect((await stored(t.id))?.assignedTo).toBeNull();
  });
});

describe('channel and openedBy', () => {
  it.each([
    ['the customer\'s opening message', [{ sender: 'customer', content: 'Help' }, { sender: 'agent', content: 'On it' }], 'customer'],
    ['an agent\'s opening message', [{ sender: 'agent', content: 'Calling you back' }, { sender: 'customer', content: 'ok' }], 'member'],
    ['no message', [], 'member'],
  ])('an API ticket opened with %s is channel api, openedBy %s, in the view and in ticket.created', async (_n, messages, openedBy) => {
    const t = await create({ messages });
    expect(t).toMatchObject({ channel: 'api', openedBy, assignedTo: null, mergedInto: null });
    expect(expectOk(await tp.api.get(`${path()}/${t.id}`), 200)).toMatchObject({ channel: 'api', openedBy });
    expect(log.forTicket(t.id)[0]).toMatchObject({ type: 'ticket.created', data: { ticket: { channel: 'api', openedBy } } });
  });
});
