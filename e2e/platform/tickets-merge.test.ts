import { startTestPlatform, type TestPlatform } from '../support/platform';
import { EventLog, expectError, expectOk, settle } from './helpdesk-helpers';

let tp: TestPlatform;
let log: EventLog;
const path = () => `${tp.teamPath}/tickets`;
const setNow = (iso: string) => {
  tp.platform.ticketing.rules.clock.now = () => new Date(iso);
};

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await EventLog.start(tp);
}, 60_000);
afterAll(async () => tp?.stop(), 60_000);

async function create(title: string, at: string, body: Record<string, unknown> = {}, key?: string, teamPath = tp.teamPath): Promise<any> {
  setNow(at);
  return expectOk(await tp.api.post(`${teamPath}/tickets`, { title, ...body }, key ? { key } : {}), 201);
}
const say = (content: string, sender = 'customer') => ({ sender, content });
const stored = () => tp.platform.ticketing.conn.collection('tickets').find({ teamId: tp.team.teamId }).sort({ _id: 1 }).toArray();
const storedMessages = () => tp.platform.ticketing.conn.collection('messages').countDocuments({ teamId: tp.team.teamId });

describe('POST /tickets/{id}/merge', () => {
  it('sources become merged and point at the target; their messages join its thread in time order; tags unite; events', async () => {
    const target = await create('Login broken', '2026-02-02T10:00:00Z', { tags: ['login'], messages: [say('I cannot log in')] });
    const a = await create('Login again', '2026-02-02T09:00:00Z', { tags: ['login', 'urgent'], messages: [say('Earliest word'), say('Any news?', 'agent')] });
    const b = await create('Password reset', '2026-02-02T11:00:00Z', { tags: ['password'], messages: [say('Latest word', 'customer')] });
    setNow('2026-02-02T12:00:00Z');
    const res = await tp.api.post(`${path()}/${target.id}/merge`, { sourceTicketIds: [a.id, b.id] });
    const merged = expectOk(res, 200);
    expect(merged).toMatchObject({ id: target.id, status: 'new', tags: ['login', 'urgent', 'password'], messageCount: 4, mergedInto: null });
    expect(merged.messages.map((m: any) => m.content)).toEqual(['Earliest word', 'Any news?', 'I cannot log in', 'Latest word']);
    expect(merged.messages.every((m: any) => m.ticketId === target.id)).toBe(true);
    for (const s of [a, b]) {
      const src = expectOk(await tp.api.get(`${path()}/${s.id}`), 200);
      expect(src).toMatchObject({ status: 'merged', mergedInto: target.id });
      expect(src.messages).toHaveLength(s.messageCount); // the sources keep their own thread
    }
    await tp.platform.ticketing.relay.drain();
    const events = await log.waitFor(target.id, 3);
    expect(events.map((e) => e.type)).toEqual(['ticket.created', 'ticket.updated', 'ticket.merged']);
    expect(events[2]).toMatchObject({ requestId: res.body.meta.requestId, data: { sourceTicketIds: [a.id, b.id], ticket: { id: target.id, messageCount: 4 } } });
    expect(events[1]!.data).toMatchObject({ changes: ['tags', 'messageCount'], previous: { tags: ['login'], messageCount: 1 } });
    expect((await log.waitFor(a.id, 2))[1]).toMatchObject({ type: 'ticket.updated', data: { changes: ['status', 'mergedInto'], ticket: { status: 'merged', mergedInto: target.id } } });

    // Merged tickets cannot be changed further.
    expectError(await tp.api.patch(`${path()}/${a.id}`, { priority: 'high' }), 409, 'conflict_error', 'resource_conflict');
    expectError(await tp.api.post(`${path()}/${a.id}/messages`, { content: 'hello?' }), 409, 'conflict_error', 'resource_conflict');
    expectError(await tp.api.post(`${path()}/${target.id}/merge`, { sourceTicketIds: [b.id] }), 409, 'conflict_error', 'resource_conflict');
    expectError(await tp.api.post(`${path()}/${a.id}/merge`, { sourceTicketIds: [target.id] }), 409, 'conflict_error', 'resource_conflict');
  });

  it.each([
    ['no body field', {}, 400, 'parameter_missing', 'sourceTicketIds'],
    ['an empty list', { sourceTicketIds: [] }, 400, 'parameter_invalid', 'sourceTicketIds'],
    ['a ticket twice', 'twice', 400, 'parameter_invalid', 'sourceTicketIds'],
    ['not ticket ids', { sourceTicketIds: ['cus_000000000000000000000000'] }, 400, 'parameter_invalid', 'sourceTicketIds.0'],
    ['a string instead of a list', 'string', 400, 'parameter_invalid', 'sourceTicketIds'],
    ['an unknown field', 'unknown', 400, 'parameter_invalid', 'keepSources'],
    ['the target itself', 'self', 400, 'parameter_invalid', 'sourceTicketIds'],
    ['an unknown ticket', { sourceTicketIds: ['tkt_000000000000000000000000'] }, 404, 'resource_not_found', undefined],
    ['another team\'s ticket', 'otherTeam', 404, 'resource_not_found', undefined],
    ['a live ticket from a test key', 'live', 404, 'resource_not_found', undefined],
  ] as const)('refuses %s and changes nothing', async (_n, spec, status, code, param) => {
    const target = await create('Target', '2026-02-03T10:00:00Z', { messages: [say('one')] });
    const source = await create('Source', '2026-02-03T10:01:00Z', { tags: ['x'] });
    const other = async () => (await create('Theirs', '2026-02-03T10:02:00Z', {}, tp.otherTeam.sk_test, `/teams/${tp.otherTeam.teamId}`)).id;
    const live = async () => (await create('Live', '2026-02-03T10:02:00Z', {}, tp.team.sk_live)).id;
    const body =
      spec === 'twice' ? { sourceTicketIds: [source.id, source.id] }
      : spec === 'string' ? { sourceTicketIds: source.id }
      : spec === 'unknown' ? { sourceTicketIds: [source.id], keepSources: true }
      : spec === 'self' ? { sourceTicketIds: [target.id] }
      : spec === 'otherTeam' ? { sourceTicketIds: [source.id, await other()] }
      : spec === 'live' ? { sourceTicketIds: [source.id, await live()] }
      : spec;
    await settle(tp, log);
    const [before, count, seen] = [await stored(), await storedMessages(), log.events.length];
    const type = status === 404 ? 'not_found_error' : 'invalid_request_error';
    expectError(await tp.api.post(`${path()}/${target.id}/merge`, body), status, type, code, param);
    expect(await stored()).toEqual(before);
    expect(await storedMessages()).toBe(count);
    expect(await settle(tp, log)).toBe(seen + 1); // only the marker
  });

  it('keys: another team or partition cannot merge into the target (404); publishable 403', async () => {
    const target = await create('Target', '2026-02-04T10:00:00Z');
    const source = await create('Source', '2026-02-04T10:01:00Z');
    const body = { sourceTicketIds: [source.id] };
    expectError(await tp.api.post(`/teams/${tp.otherTeam.teamId}/tickets/${target.id}/merge`, body, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.post(`${path()}/${target.id}/merge`, body, { key: tp.team.sk_live }), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.post(`${path()}/${target.id}/merge`, body, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    expect(expectOk(await tp.api.get(`${path()}/${source.id}`), 200).status).toBe('new');
  });
});
