/**
 * The real-time event stream through the whole platform (docs/adr/0021), with the `eventsource`
 * package as the client: order, patterns, replay after a disconnect, the gap frame, isolation,
 * key rules, revocation and bad inputs. Events are published on the bus as their services would.
 */
import { EventSource } from 'eventsource';
import type { EventEnvelope, Partition } from '@helpdesk/contracts';
import { envelope, messageFixture } from '@helpdesk/testing';
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { eventually, expectError, expectOk } from './helpdesk-helpers';
import { receive, statusEvents, streamPath as pathOf, StreamClient as Client, ticketEvents as eventsOf } from './stream-helpers';

let tp: TestPlatform;
let team: TeamKeys;
const streamPath = (teamId = team.teamId) => pathOf(teamId);

beforeAll(async () => {
  tp = await startTestPlatform();
  team = await tp.createTeam('Stream Co');
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

/** An EventSource on the gateway with `key` in the Authorization header. */
class StreamClient extends Client {
  constructor(key: string, query = '', lastEventId?: string, teamId = team.teamId) {
    super(`${tp.baseUrl}${streamPath(teamId)}${query}`, key, lastEventId);
  }
}

const ticketEvents = (n: number, teamId = team.teamId, mode: Partition = 'test') => eventsOf(n, teamId, mode);

const publish = (events: EventEnvelope[]) => tp.platform.buses.notifications.publish(events);

describe('the event stream', () => {
  it('streams every event of the team and partition in order, as the webhook body, with increasing ids', async () => {
    const c = new StreamClient(team.sk_test);
    await c.opened;
    const sent = ticketEvents(20);
    for (const e of sent) await publish([e]);
    const frames = await receive(c, 20, 'live events');
    c.close();
    // One consumer (one process) logs events in publish order; replicas sharing the queue log them in the
    // order they consumed them (docs/adr/0021): every event once either way, ids increasing.
    if (tp.shape === 'one-process') expect(frames.map((f) => f.data.id)).toEqual(sent.map((e) => e.id));
    else expect(frames.map((f) => f.data.id).sort()).toEqual(sent.map((e) => e.id).sort());
    const first = sent.find((e) => e.id === frames[0].data.id)!;
    expect(frames[0]).toEqual({
      id: expect.stringMatching(/^\d+-\d+$/),
      event: 'ticket.created',
      data: { id: first.id, type: 'ticket.created', createdAt: first.occurredAt, teamId: team.teamId, mode: 'test', data: first.data },
    });
    const ids = frames.map((f) => f.id.split('-').map(Number));
    for (let i = 1; i < ids.length; i++) expect(ids[i][0] > ids[i - 1][0] || (ids[i][0] === ids[i - 1][0] && ids[i][1] > ids[i - 1][1])).toBe(true);
  });

  it('the answer is an unbuffered text/event-stream that starts with a retry hint', async () => {
    const ac = new AbortController();
    const res = await fetch(`${tp.baseUrl}${streamPath()}`, { headers: { authorization: `Bearer ${team.sk_test}` }, signal: ac.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect(res.headers.get('content-length')).toBeNull();
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe('retry: 3000\n\n');
    ac.abort();
  });

  it('a client disconnected at a random point reconnects with its last id and gets exactly the missed events (1,000 events, 10 times)', async () => {
    for (let round = 0; round < 10; round++) {
      const sent = statusEvents(1_000, team.teamId);
      const cut = 1 + Math.floor(Math.random() * 998);
      // The log's order (the order the service consumed them in), as a client that stays connected sees it.
      const reference = new StreamClient(team.sk_test);
      const first = new StreamClient(team.sk_test);
      await Promise.all([reference.opened, first.opened]);
      let lastId = '';
      const cutReached = new Promise<void>((resolve) => {
        first.es.addEventListener('customer_status.created', (m) => {
          if (first.frames.length === cut) {
            lastId = m.lastEventId;
            first.close();
            resolve();
          }
        });
      });
      // Published in batches while the first client reads, so the cut falls while events are still arriving.
      const publishing = (async () => {
        for (let i = 0; i < sent.length; i += 50) await publish(sent.slice(i, i + 50));
      })();
      await cutReached;
      const firstIds = first.eventIds().slice(0, cut);
      const second = new StreamClient(team.sk_test, '', lastId);
      await publishing;
      await receive(second, sent.length - cut, `round ${round} replay`);
      await receive(reference, sent.length, `round ${round} reference`);
      second.close();
      reference.close();
      expect(second.frames.some((f) => f.event === 'stream.gap')).toBe(false);
      expect([...firstIds, ...second.eventIds()]).toEqual(reference.eventIds());
      expect(new Set(reference.eventIds())).toEqual(new Set(sent.map((e) => e.id)));
    }
  }, 300_000);

  it('Last-Event-ID also works as ?lastEventId=, and the header wins', async () => {
    const sent = ticketEvents(3);
    const c = new StreamClient(team.sk_test);
    await c.opened;
    await publish(sent);
    const frames = await receive(c, 3, 'three events');
    c.close();
    expect(frames.map((f) => f.data.id).sort()).toEqual(sent.map((e) => e.id).sort());
    // Replays follow the log's order, which is what the first client saw.
    const byQuery = new StreamClient(team.sk_test, `?lastEventId=${frames[0].id}`);
    expect((await receive(byQuery, 2, 'replay by query')).map((f) => f.data.id)).toEqual([frames[1].data.id, frames[2].data.id]);
    byQuery.close();
    const both = new StreamClient(team.sk_test, `?lastEventId=${frames[0].id}`, frames[1].id);
    expect((await receive(both, 1, 'replay by header')).map((f) => f.data.id)).toEqual([frames[2].data.id]);
    both.close();
  });

  it('?types= filters with the webhook patterns (exact types and categories)', async () => {
    const exact = new StreamClient(team.sk_test, '?types=customer.*,ticket.message_added');
    const category = new StreamClient(team.sk_test, '?types=ticket.*');
    await Promise.all([exact.opened, category.opened]);
    const [t1, t2] = ticketEvents(2);
    const message = (n: number) =>
      envelope('ticket.message_added', { ticket: t1.data.ticket, message: messageFixture(t1.data.ticket.id, `Hello ${n}`) }, { teamId: team.teamId });
    const [m1, m2, m3] = [message(1), message(2), message(3)];
    await publish([t1, m1, t2, m2]);
    await receive(category, 4, 'ticket.*');
    // m3 goes into the log after t2: with m3 in, t2 was filtered out, not late.
    await publish([m3]);
    const frames = await receive(exact, 3, 'exact type');
    expect(category.eventIds().slice(0, 4).sort()).toEqual([t1.id, m1.id, t2.id, m2.id].sort());
    expect(frames.map((f) => f.event)).toEqual(['ticket.message_added', 'ticket.message_added', 'ticket.message_added']);
    expect(exact.eventIds().slice(0, 2).sort()).toEqual([m1.id, m2.id].sort());
    expect(exact.eventIds()[2]).toBe(m3.id);
    exact.close();
    category.close();
  });

  it('the other team and the other partition never see each other\'s events', async () => {
    const liveClient = new StreamClient(team.sk_live);
    const other = new StreamClient(tp.otherTeam.sk_test, '', undefined, tp.otherTeam.teamId);
    const mine = new StreamClient(team.sk_test);
    await Promise.all([liveClient.opened, other.opened, mine.opened]);
    const test = ticketEvents(2);
    const live = ticketEvents(1, team.teamId, 'live');
    const others = ticketEvents(1, tp.otherTeam.teamId);
    await publish([test[0], live[0], others[0], test[1]]);
    await receive(mine, 2, 'test partition');
    await receive(liveClient, 1, 'live partition');
    await receive(other, 1, 'other team');
    // Each stream has exactly its own events (another's would have come among them).
    expect(mine.eventIds().sort()).toEqual(test.map((e) => e.id).sort());
    expect(liveClient.eventIds()).toEqual([live[0].id]);
    expect(liveClient.frames[0].data.mode).toBe('live');
    expect(other.eventIds()).toEqual([others[0].id]);
    for (const c of [mine, liveClient, other]) c.close();
  });

  it('refuses a publishable key, another team, a bad pattern, a bad Last-Event-ID and an unknown parameter before the stream opens', async () => {
    expectError(await tp.api.get(streamPath(), { key: team.pk_test }), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await tp.api.get(streamPath(tp.otherTeam.teamId), { key: team.sk_test }), 403, 'authorization_error', 'team_access_denied');
    expectError(await tp.api.get(`${streamPath()}?types=ticket.*,nonsense`, { key: team.sk_test }), 400, 'invalid_request_error', 'parameter_invalid', 'types');
    expectError(await tp.api.get(`${streamPath()}?types=ticket.created,,`, { key: team.sk_test }), 400, 'invalid_request_error', 'parameter_invalid', 'types');
    expectError(await tp.api.get(`${streamPath()}?types=nope.*`, { key: team.sk_test }), 400, 'invalid_request_error', 'parameter_invalid', 'types');
    expectError(await tp.api.get(`${streamPath()}?lastEventId=evt_1`, { key: team.sk_test }), 400, 'invalid_request_error', 'parameter_invalid', 'lastEventId');
    expectError(await tp.api.get(streamPath(), { key: team.sk_test, headers: { 'last-event-id': 'yesterday' } }), 400, 'invalid_request_error', 'parameter_invalid', 'Last-Event-ID');
    expectError(await tp.api.get(`${streamPath()}?since=now`, { key: team.sk_test }), 400, 'invalid_request_error', 'parameter_invalid', 'since');
    expectError(await tp.api.get(streamPath(), { key: null }), 401, 'authentication_error', 'authentication_required');
  });

  it('ends the stream when its key is revoked', async () => {
    const made = expectOk(await tp.api.post(`/teams/${team.teamId}/api-keys`, { name: 'stream key' }, { key: team.sk_test }), 201);
    const c = new StreamClient(made.key);
    await c.opened;
    expectOk(await tp.api.delete(`/teams/${team.teamId}/api-keys/${made.id}`, { key: team.sk_test }), 200);
    // EventSource reconnects after the stream ends and is refused for good: 401.
    await eventually('the stream closed', () => (c.es.readyState === EventSource.CLOSED ? true : null), 20_000);
    expect(c.failures.at(-1)?.status).toBe(401);
  }, 30_000);
});
