import { Writable } from 'node:stream';
import pino from 'pino';
import { jsonHeaders, startHarness, type Harness } from './helpers';

/** The access line of every 5xx names its cause: which upstream, what failed (gateway/src/access-log.ts). */
const lines: Record<string, unknown>[] = [];
const logger = pino(
  { level: 'info' },
  new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l.includes('"msg":"request"')) lines.push(JSON.parse(l));
      done();
    },
  }),
);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ logger });
});
afterAll(async () => h?.stop());

async function lineOf(requestId: string) {
  for (let i = 0; i < 200; i++) {
    const found = lines.find((l) => l.requestId === requestId);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no access line for ${requestId}`);
}

test('a service that answers 500: a warn line naming the service and its answer', async () => {
  const res = await fetch(`${h.teamUrl}/tickets`, { method: 'POST', headers: jsonHeaders(h.keys.sk_test), body: JSON.stringify({ fail: 'crash' }) });
  expect(res.status).toBe(500);
  const line = await lineOf(res.headers.get('x-svc-request-id')!);
  expect(line).toMatchObject({ level: 40, operation: 'createTicket', status: 500, teamId: h.team.id, cause: { upstream: 'ticketing', what: 'answered 500 internal_error' } });
});

test('a service that cannot be reached: 503 with the connection error as its cause', async () => {
  const down = await startHarness({ logger, services: { ticketing: 'http://127.0.0.1:1' } });
  try {
    const res = await fetch(`${down.teamUrl}/tickets`, { headers: jsonHeaders(down.keys.sk_test) });
    expect(res.status).toBe(503);
    const line = await lineOf(res.headers.get('x-svc-request-id')!);
    expect(line).toMatchObject({ level: 40, operation: 'listTickets', status: 503, code: 'service_unavailable', keyPrefix: down.keys.sk_test.slice(0, 12), cause: { upstream: 'ticketing', what: 'unreachable', error: expect.stringMatching(/ECONNREFUSED/) } });
  } finally {
    await down.stop();
  }
});

test('a service without a URL: 503 saying so', async () => {
  const res = await fetch(`${h.teamUrl}/customers`, { headers: jsonHeaders(h.keys.sk_test) });
  expect(res.status).toBe(503);
  const line = await lineOf(res.headers.get('x-svc-request-id')!);
  expect(line).toMatchObject({ status: 503, cause: { upstream: 'customers', what: 'no URL configured' } });
});
