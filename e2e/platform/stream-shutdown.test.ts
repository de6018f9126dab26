/**
 * Stopping the gateway ends the event streams it relays at once (they would hold its server's close
 * for the whole grace period): with one stream open, the gateway stops in well under its 5 s grace,
 * and the client's stream ends.
 */
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { streamPath } from './stream-helpers';

let tp: TestPlatform;
beforeAll(async () => {
  tp = await startTestPlatform();
}, 60_000);
afterAll(async () => tp?.stop(), 60_000);

test('an open stream does not hold the gateway’s stop', async () => {
  const res = await fetch(`${tp.baseUrl}${streamPath(tp.team.teamId)}`, { headers: { authorization: `Bearer ${tp.team.sk_test}` } });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  await reader.read(); // the stream's first bytes: it is open end to end
  const ended = (async () => {
    try {
      for (;;) if ((await reader.read()).done) return 'ended';
    } catch {
      return 'ended';
    }
  })();
  const t0 = Date.now();
  await tp.platform.gateway.stop();
  expect(Date.now() - t0).toBeLessThan(2500);
  await expect(ended).resolves.toBe('ended');
});
