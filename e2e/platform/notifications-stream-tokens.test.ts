/**
 * The event stream from a browser and from trigger-test (docs/adr/0021, 0031): a stream token opens
 * the stream with no key, bound to its key's team, partition and types and to the key itself; the
 * webhooks service's test event reaches the stream's listeners. The client is the `eventsource` package.
 */
import type { EventEnvelope } from '@helpdesk/contracts';
import { envelope, messageFixture } from '@helpdesk/testing';
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { eventually, expectError, expectOk, ISO } from './helpdesk-helpers';
import { receive, streamPath, StreamClient, ticketEvents } from './stream-helpers';

let tp: TestPlatform;
let team: TeamKeys;
const TOKENS = () => `/teams/${team.teamId}/events/stream-tokens`;
const streamUrl = (query = '', teamId = team.teamId) => `${tp.baseUrl}${streamPath(teamId)}${query}`;
const publish = (events: EventEnvelope[]) => tp.platform.buses.notifications.publish(events);
const newToken = async (body: object = {}, key = team.sk_test) => expectOk(await tp.api.post(TOKENS(), body, { key }), 201);

beforeAll(async () => {
  tp = await startTestPlatform();
  team = await tp.createTeam('Browser Co');
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('stream tokens', () => {
  it('a browser opens the stream with ?token= and no key: the token\'s team, partition and types only', async () => {
    const made = await newToken({ types: 'ticket.created' });
    expect(made).toEqual({ object: 'stream_token', token: expect.stringMatching(/^st_[A-Za-z0-9_-]{40,}$/), expiresAt: expect.stringMatching(ISO), types: ['ticket.created'] });
    const life = Date.parse(made.expiresAt) - Date.now();
    expect(life).toBeGreaterThan(4 * 60_000);
    expect(life).toBeLessThanOrEqual(5 * 60_000);
    const live = await newToken({}, team.sk_live);
    expect(live.types).toEqual(['*']);

    const browser = new StreamClient(streamUrl(`?token=${made.token}`), null);
    const liveBrowser = new StreamClient(streamUrl(`?token=${live.token}`), null);
    await Promise.all([browser.opened, liveBrowser.opened]);
    const [t1, t2] = ticketEvents(2, team.teamId);
    const m1 = envelope('ticket.message_added', { ticket: t1.data.ticket, message: messageFixture(t1.data.ticket.id, 'Hi') }, { teamId: team.teamId });
    const [liveEvent] = ticketEvents(1, team.teamId, 'live');
    const [others] = ticketEvents(1, tp.otherTeam.teamId);
    await publish([t1, m1, liveEvent, others, t2]);
    await receive(browser, 2, 'the token\'s stream');
    await receive(liveBrowser, 1, 'the live token\'s stream');
    // t2 came last: the message (other type), the live event and the other team's never came before it.
    expect(browser.eventIds()).toEqual([t1.id, t2.id]);
    expect(liveBrowser.eventIds()).toEqual([liveEvent.id]);
    browser.close();
    liveBrowser.close();
  });

  it('a page on another origin may read the stream opened with a token (CORS), counted against the issuing key', async () => {
    const { token } = await newToken();
    const ac = new AbortController();
    const res = await fetch(streamUrl(`?token=${token}`), { headers: { origin: 'https://app.example.com' }, signal: ac.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    // The issuing key's rate limit (100,000 a minute in tests), not the publishable one's.
    expect(res.headers.get('x-ratelimit-limit')).toBe('100000');
    expect(new TextDecoder().decode((await res.body!.getReader().read()).value)).toBe('retry: 3000\n\n');
    ac.abort();
    const refused = await fetch(streamUrl('?token=st_nonsense'), { headers: { origin: 'https://app.example.com' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
  });

  it('revoking the issuing key ends the streams opened with its token and refuses the token', async () => {
    const key = expectOk(await tp.api.post(`/teams/${team.teamId}/api-keys`, { name: 'browser backend' }, { key: team.sk_test }), 201);
    const { token } = await newToken({}, key.key);
    const browser = new StreamClient(streamUrl(`?token=${token}`), null);
    await browser.opened;
    expectOk(await tp.api.delete(`/teams/${team.teamId}/api-keys/${key.id}`, { key: team.sk_test }), 200);
    // EventSource reconnects after the stream ends and is refused for good: 401.
    await eventually('the stream closed', () => (browser.es.readyState === 2 ? true : null), 20_000);
    expect(browser.failures.at(-1)?.status).toBe(401);
    expectError(await tp.api.get(`${streamPath(team.teamId)}?token=${token}`, { key: null }), 401, 'authentication_error', 'invalid_api_key');
  }, 30_000);

  it('refuses bad tokens and bad token requests in the documented shape', async () => {
    const made = await newToken({ types: 'ticket.*' });
    const open = (query: string, key: string | null = null, teamId = team.teamId) => tp.api.get(`${streamPath(teamId)}${query}`, { key });
    const flipped = made.token.slice(0, 20) + (made.token[20] === 'A' ? 'B' : 'A') + made.token.slice(21);
    expectError(await open('?token=st_nonsense'), 401, 'authentication_error', 'invalid_api_key', 'token');
    expectError(await open(`?token=${flipped}`), 401, 'authentication_error', 'invalid_api_key', 'token');
    expectError(await open('?token='), 401, 'authentication_error', 'invalid_api_key', 'token');
    expectError(await open(`?token=${made.token}`, null, tp.otherTeam.teamId), 403, 'authorization_error', 'team_access_denied');
    expectError(await open(`?token=${made.token}&types=customer.*`), 400, 'invalid_request_error', 'parameter_invalid', 'types');
    expectError(await open(`?token=${made.token}`, team.sk_test), 400, 'invalid_request_error', 'parameter_invalid', 'token');
    expectError(await open(`?token=${made.token}&lastEventId=x`), 400, 'invalid_request_error', 'parameter_invalid', 'lastEventId');
    // A token opens the stream only: anywhere else it is no key at all.
    expectError(await tp.api.get(`/teams/${team.teamId}/tickets?token=${made.token}`, { key: null }), 401, 'authentication_error', 'authentication_required');
    // Nor on the other streamed answer (an export is a download, not the event stream).
    expectError(await tp.api.post(`/teams/${team.teamId}/export?token=${made.token}`, { resources: ['tickets'] }, { key: null }), 401, 'authentication_error', 'authentication_required');

    expectError(await tp.api.post(TOKENS(), {}, { key: team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    expectError(await tp.api.post(`/teams/${tp.otherTeam.teamId}/events/stream-tokens`, {}, { key: team.sk_test }), 403, 'authorization_error', 'team_access_denied');
    expectError(await tp.api.post(TOKENS(), { types: 'ticket.*,nonsense' }, { key: team.sk_test }), 400, 'invalid_request_error', 'parameter_invalid', 'types');
    expectError(await tp.api.post(TOKENS(), { types: '' }, { key: team.sk_test }), 400, 'invalid_request_error', 'parameter_invalid', 'types');
    expectError(await tp.api.post(TOKENS(), { types: 5 }, { key: team.sk_test }), 400, 'invalid_request_error', 'parameter_invalid', 'types');
    expectError(await tp.api.post(TOKENS(), { ttl: 60 }, { key: team.sk_test }), 400, 'invalid_request_error', 'parameter_invalid', 'ttl');
    expectError(await tp.api.post(TOKENS(), {}, { key: null }), 401, 'authentication_error', 'authentication_required');
  });
});

describe('trigger-test on the stream', () => {
  it('the test event reaches the stream of its team and partition, as the webhooks receive it', async () => {
    const mine = new StreamClient(streamUrl(), team.sk_test);
    const live = new StreamClient(streamUrl(), team.sk_live);
    const other = new StreamClient(streamUrl('', tp.otherTeam.teamId), tp.otherTeam.sk_test);
    await Promise.all([mine.opened, live.opened, other.opened]);
    const trigger = async (event: string, key: string) =>
      expectOk(await tp.api.post(`/teams/${team.teamId}/webhooks/trigger-test`, { event }, { key }), 200);
    const first = await trigger('ticket.closed', team.sk_test);
    const inLive = await trigger('customer.created', team.sk_live);
    const last = await trigger('ticket.created', team.sk_test);
    await receive(mine, 2, 'the test partition\'s test events');
    await receive(live, 1, 'the live partition\'s test event');
    expect(mine.frames.map((f) => [f.event, f.data.id])).toEqual([['ticket.closed', first.eventId], ['ticket.created', last.eventId]]);
    expect(mine.frames[0]).toEqual({
      id: expect.stringMatching(/^\d+-\d+$/),
      event: 'ticket.closed',
      data: { id: first.eventId, type: 'ticket.closed', createdAt: expect.stringMatching(ISO), teamId: team.teamId, mode: 'test', test: true, data: {} },
    });
    expect(live.frames.map((f) => [f.event, f.data.id, f.data.mode, f.data.test])).toEqual([['customer.created', inLive.eventId, 'live', true]]);
    // The other team's stream: one event of its own after ours shows nothing of ours came first.
    await expectOk(await tp.api.post(`/teams/${tp.otherTeam.teamId}/webhooks/trigger-test`, { event: 'ticket.created' }, { key: tp.otherTeam.sk_test }), 200);
    await receive(other, 1, 'the other team\'s own test event');
    expect(other.frames.map((f) => f.data.teamId)).toEqual([tp.otherTeam.teamId]);
    for (const c of [mine, live, other]) c.close();
  });
});
