/** An open event stream does not hold up the service's stop: it is ended at once (src/events/stream/open-streams.ts). */
import type { Response } from 'express';
import { ApiError, InternalTokens } from '@helpdesk/kit';
import { OpenStreams } from '../src/events/stream/open-streams';
import { SECRET, startHarness, TEAM_A, type Harness } from './helpers';

/** Opens the team's stream on the service as the gateway would, and reads it. */
async function openStream(h: Harness): Promise<{ firstChunk: string; rest: Promise<string> }> {
  const token = await new InternalTokens(SECRET).sign({
    teamId: TEAM_A, mode: 'test', keyId: 'key_testkey0001', keyType: 'secret', memberId: null, permissions: [], requestId: 'req_stream0001',
  });
  const res = await fetch(`${h.url}/teams/${TEAM_A}/events/stream`, { headers: { 'x-internal-token': token, 'x-svc-request-id': 'req_stream0001' } });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const first = await reader.read();
  const rest = (async () => {
    let text = '';
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return text;
      text += decoder.decode(value);
    }
  })();
  return { firstChunk: decoder.decode(first.value), rest };
}

test('stopping the service ends its open streams at once instead of waiting ~5 s for them', async () => {
  const h = await startHarness();
  let stopped = false;
  try {
    const streams = await Promise.all([openStream(h), openStream(h)]);
    for (const s of streams) expect(s.firstChunk).toContain('retry: 3000');
    const started = Date.now();
    await h.svc.stop();
    const tookMs = Date.now() - started;
    stopped = true;
    // The clients see their streams end (and reconnect with Last-Event-ID elsewhere).
    await Promise.all(streams.map((s) => s.rest));
    expect(tookMs).toBeLessThan(2_500);
  } finally {
    if (!stopped) await h.svc.stop();
    await h.stop();
  }
}, 30_000);

describe('OpenStreams', () => {
  const fakeRes = () => {
    const listeners: Record<string, () => void> = {};
    const res = {
      writableEnded: false,
      destroyed: false,
      socket: { destroy: jest.fn() },
      once: (event: string, fn: () => void) => void (listeners[event] = fn),
      end: jest.fn((cb?: () => void) => {
        res.writableEnded = true;
        cb?.();
        listeners.close?.();
      }),
    };
    return res;
  };

  it('ends what is open, closing its socket, forgets what closed by itself, and refuses new streams (503) once stopping', () => {
    const open = new OpenStreams();
    const [a, b, gone] = [fakeRes(), fakeRes(), fakeRes()];
    for (const r of [a, b, gone]) open.add(r as unknown as Response);
    gone.end();
    expect(open.size).toBe(2);
    open.endAll();
    for (const r of [a, b]) {
      expect(r.end).toHaveBeenCalledTimes(1);
      expect(r.socket.destroy).toHaveBeenCalledTimes(1);
    }
    expect(gone.end).toHaveBeenCalledTimes(1); // not ended twice
    expect(open.size).toBe(0);
    let refused: unknown;
    try {
      open.add(fakeRes() as unknown as Response);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ code: 'service_unavailable', status: 503 });
  });
});
