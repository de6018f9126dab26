/**
 * Safety with the production default (WEBHOOKS_ALLOW_LOOPBACK off), through the gateway: private,
 * loopback and metadata addresses are refused when written, and a name that resolves to loopback is
 * refused when connecting: the delivery fails with the reason, and no request reaches the receiver.
 */
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { eventually, expectError, expectOk } from './helpdesk-helpers';
import { createTicket, createWebhook, newTeam, Receiver, waitForDelivery, type Team } from './webhooks-helpers';

let tp: TestPlatform;
let t: Team;
let rx: Receiver;

beforeAll(async () => {
  tp = await startTestPlatform({ webhooks: { retryScheduleMs: [50, 50], jitter: 0, pollIntervalMs: 50 } });
  t = await newTeam(tp);
  rx = await Receiver.start();
}, 60_000);
afterAll(async () => {
  await tp?.stop();
  await rx?.close();
}, 60_000);

const W = () => `${t.path}/webhooks`;

it.each([
  ['plain http to loopback', () => rx.url()],
  ['plain http to localhost', () => `http://localhost:${rx.port}/hook`],
  ['https to a loopback address', () => `https://127.0.0.1:${rx.port}/hook`],
  ['https to IPv6 loopback', () => `https://[::1]:${rx.port}/hook`],
  ['https to an IPv4-mapped loopback address', () => `https://[::ffff:127.0.0.1]:${rx.port}/hook`],
  ['https to a private address', () => 'https://10.0.0.1/hook'],
  ['https to a link-local (metadata) address', () => 'https://169.254.169.254/latest/meta-data/'],
  ['https to the unspecified address', () => 'https://0.0.0.0/hook'],
])('refuses %s when written (400 url) and writes nothing', async (_n, url) => {
  const res = await t.api.post(W(), { name: 'blocked', url: url(), events: '*' });
  expectError(res, 400, 'invalid_request_error', 'parameter_invalid', 'url');
  expect(expectOk(await t.api.get(W()), 200)).toEqual([]);
});

it('a name resolving to 127.0.0.1 is refused at connect time: the delivery fails with "address blocked", no request arrives', async () => {
  const w = await createWebhook(t, { name: 'rebinding', url: `https://localhost:${rx.port}/hook`, events: 'ticket.created' });
  await createTicket(t);
  const [d] = await eventually('the delivery is created', async () => {
    const list = expectOk(await t.api.get(`${W()}/${w.id}/deliveries`), 200);
    return list.length ? list : undefined;
  });
  const failed = await waitForDelivery(t, w.id, d.id, 'failed');
  expect(failed.attempts).toHaveLength(3);
  for (const a of failed.attempts) {
    expect(a).toMatchObject({ statusCode: null, error: 'address blocked: localhost resolved to 127.0.0.1 (loopback); webhooks are only delivered to public addresses' });
  }
  // The same with trigger-test; and the receiver never even saw a connection.
  const test = expectOk(await t.api.post(`${W()}/trigger-test`, { event: 'ticket.created' }), 200);
  await waitForDelivery(t, w.id, test.deliveries[0].id, 'failed');
  expect(rx.connections).toBe(0);
  expect(rx.requests).toEqual([]);
  // Failing is not gone: the webhook stays active (5 days of failures would disable it).
  expect(expectOk(await t.api.get(`${W()}/${w.id}`), 200).isActive).toBe(true);
});
