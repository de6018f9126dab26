/**
 * The event stream's connection (docs/adr/0021) on a platform with a short heartbeat and a small
 * slow-client bound: the `: heartbeat` comment keeps coming, and a client that stops reading is
 * disconnected instead of having its backlog held by the server.
 */
import { connect, type Socket } from 'node:net';
import { envelope } from '@helpdesk/testing';
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { eventually } from './helpdesk-helpers';
import { streamPath } from './stream-helpers';

const HEARTBEAT_MS = 200;
const MAX_BUFFERED_BYTES = 64 * 1024;

let tp: TestPlatform;
let team: TeamKeys;

beforeAll(async () => {
  tp = await startTestPlatform({ stream: { heartbeatMs: HEARTBEAT_MS, maxBufferedBytes: MAX_BUFFERED_BYTES } });
  team = await tp.createTeam('Connection Co');
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('the event stream\'s connection', () => {
  it('sends a `: heartbeat` comment again and again while nothing happens', async () => {
    const ac = new AbortController();
    const res = await fetch(`${tp.baseUrl}${streamPath(team.teamId)}`, { headers: { authorization: `Bearer ${team.sk_test}` }, signal: ac.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while ((text.match(/: heartbeat\n\n/g) ?? []).length < 3) text += decoder.decode((await reader.read()).value, { stream: true });
    ac.abort();
    expect(text.startsWith('retry: 3000\n\n: heartbeat\n\n: heartbeat\n\n: heartbeat\n\n')).toBe(true);
  });

  it('counts an open stream on the gateway\'s open-streams gauge while it is open', async () => {
    const open = () => tp.metric('gateway', 'helpdesk_gateway_sse_streams_open');
    // The previous test's stream ends on the gateway at its next write (a heartbeat) after the client left.
    await eventually('no stream open', async () => ((await open()) === 0 ? true : null));
    const before = 0;
    const ac = new AbortController();
    const res = await fetch(`${tp.baseUrl}${streamPath(team.teamId)}`, { headers: { authorization: `Bearer ${team.sk_test}` }, signal: ac.signal });
    await res.body!.getReader().read();
    expect(await open()).toBe(before + 1);
    ac.abort();
    await eventually('the stream no longer counted', async () => ((await open()) === before ? true : null));
  });

  it('disconnects a client that stops reading once its backlog passes the bound, holding none of the rest', async () => {
    const url = new URL(tp.baseUrl);
    const socket: Socket = connect(Number(url.port), url.hostname);
    let received = 0;
    let ended = false;
    const started = new Promise<void>((resolve) => socket.once('data', () => resolve()));
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    socket.on('close', () => (ended = true));
    socket.on('error', () => (ended = true));
    socket.write(
      `GET ${url.pathname}${streamPath(team.teamId)} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${team.sk_test}\r\nAccept: text/event-stream\r\n\r\n`,
    );
    await started;
    // The client stops reading: from here the server's writes pile up on its side of the connection.
    socket.pause();
    const big = 'x'.repeat(8 * 1024);
    // A type only the stream, webhooks and the audit log consume (ticket.created would load five services' projections).
    const events = Array.from({ length: 2_000 }, (_, i) =>
      envelope('customer_status.created', { status: { key: `big_${i}`, label: big, color: '#336699', position: i, isProtected: false } }, { teamId: team.teamId }),
    );
    const published = events.reduce((n, e) => n + JSON.stringify(e.data).length, 0);
    for (let i = 0; i < events.length; i += 100) await tp.platform.buses.notifications.publish(events.slice(i, i + 100));
    // Reading again, the client finds its connection closed (the heartbeat would keep a kept one open),
    // having been sent a small part of the events: the rest was never held for it.
    socket.resume();
    await eventually('the connection closed', () => (ended ? true : null), 30_000);
    expect(received).toBeLessThan(published / 4);
    socket.destroy();
  }, 60_000);

  it('counts against the key\'s rate limit once, however long it stays open and whatever it carries', async () => {
    // Its own team: the previous test's flood of events may still be on its way to the first one's streams.
    const team = await tp.createTeam('Rate Limit Co');
    const auth = { authorization: `Bearer ${team.sk_test}` };
    const remaining = (res: Response) => ({ left: Number(res.headers.get('x-ratelimit-remaining')), reset: res.headers.get('x-ratelimit-reset') });
    // Inside one rate-limit window: a sequence that straddles two is measured again.
    for (let attempt = 0; ; attempt++) {
      const first = remaining(await fetch(`${tp.baseUrl}/teams/${team.teamId}/tickets?pageSize=1`, { headers: auth }));
      const ac = new AbortController();
      const res = await fetch(`${tp.baseUrl}${streamPath(team.teamId)}`, { headers: auth, signal: ac.signal });
      expect(res.status).toBe(200);
      const opened = remaining(res);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      const events = Array.from({ length: 20 }, (_, i) =>
        envelope('customer_status.created', { status: { key: `rl_${attempt}_${i}`, label: 'Limit', color: '#336699', position: i, isProtected: false } }, { teamId: team.teamId }),
      );
      await tp.platform.buses.notifications.publish(events);
      // Twenty events and several heartbeats through the one request.
      while ((text.match(/^event: customer_status\.created$/gm) ?? []).length < 20 || (text.match(/: heartbeat\n\n/g) ?? []).length < 3) {
        text += decoder.decode((await reader.read()).value, { stream: true });
      }
      ac.abort();
      const after = remaining(await fetch(`${tp.baseUrl}/teams/${team.teamId}/tickets?pageSize=1`, { headers: auth }));
      if ((first.reset !== opened.reset || opened.reset !== after.reset) && attempt < 2) continue;
      expect(opened.left).toBe(first.left - 1);
      expect(after.left).toBe(first.left - 2);
      return;
    }
  }, 60_000);
});
