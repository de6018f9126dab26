/**
 * Safety with the production default (WEBHOOKS_ALLOW_LOOPBACK off), through the gateway: private,
 * loopback (`localhost` included) and metadata addresses are refused when written, with a message that
 * names the setting where it would lift the refusal, and a name that resolves to a refused address is
 * refused when connecting: the delivery fails with the reason, and no request reaches the receiver.
 */
import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { addressVerdict } from '@helpdesk/webhooks';
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
  ['https to localhost (a loopback name: refused when written, as delivery would refuse it)', () => `https://localhost:${rx.port}/hook`],
])('refuses %s when written (400 url) and writes nothing', async (_n, url) => {
  const res = await t.api.post(W(), { name: 'blocked', url: url(), events: '*' });
  expectError(res, 400, 'invalid_request_error', 'parameter_invalid', 'url');
  expect(expectOk(await t.api.get(W()), 200)).toEqual([]);
});

it('a refusal that WEBHOOKS_ALLOW_LOOPBACK would lift names the setting; one that it would not, does not', async () => {
  const http = await t.api.post(W(), { name: 'local', url: rx.url(), events: '*' });
  expect(http.body.error.message).toBe(
    'Invalid url: must use https:// (plain http:// is accepted only to a loopback host, and allowed only when the deployment sets ' +
      'WEBHOOKS_ALLOW_LOOPBACK=true (unsafe: local development only)).',
  );
  const named = await t.api.post(W(), { name: 'local', url: `https://localhost:${rx.port}/hook`, events: '*' });
  expect(named.body.error.message).toMatch(/^Invalid url: must not point at a loopback host \(localhost\): .*WEBHOOKS_ALLOW_LOOPBACK=true/);
  const updated = await t.api.patch(`${W()}/whk_${'x'.repeat(24)}`, { url: `https://127.0.0.1:${rx.port}/hook` });
  expectError(updated, 400, 'invalid_request_error', 'parameter_invalid', 'url'); // the same rule on update, before the lookup
  expect(updated.body.error.message).toContain('WEBHOOKS_ALLOW_LOOPBACK=true');
  const priv = await t.api.post(W(), { name: 'private', url: 'https://10.0.0.1/hook', events: '*' });
  expect(priv.body.error.message).toBe('Invalid url: must not point at a private address (10.0.0.1).');
});

/**
 * A name other than localhost is resolved when connecting. This machine's own name resolves to a
 * loopback or private address wherever the tests run (/etc/hosts, a container's address); where it
 * does not, the test has nothing to check and says so.
 */
async function refusedName(): Promise<{ name: string; address: string; range: string } | null> {
  const name = hostname();
  const found = await lookup(name).catch(() => null);
  if (!found || /(^|\.)localhost\.?$/i.test(name)) return null;
  const { allowed, range } = addressVerdict(found.address, { allowLoopback: false });
  return allowed ? null : { name, address: found.address, range };
}

it('a name resolving to a refused address is accepted when written, then refused at connect time: "address blocked", no request arrives', async () => {
  const target = await refusedName();
  if (!target) return console.warn(`skipped: ${hostname()} resolves to a public address here`);
  const w = await createWebhook(t, { name: 'rebinding', url: `https://${target.name}:${rx.port}/hook`, events: 'ticket.created' });
  await createTicket(t);
  const [d] = await eventually('the delivery is created', async () => {
    const list = expectOk(await t.api.get(`${W()}/${w.id}/deliveries`), 200);
    return list.length ? list : undefined;
  });
  const failed = await waitForDelivery(t, w.id, d.id, 'failed');
  expect(failed.attempts).toHaveLength(3);
  const why = target.range === 'loopback'
    ? 'loopback addresses are allowed only when the deployment sets WEBHOOKS_ALLOW_LOOPBACK=true (unsafe: local development only)'
    : 'webhooks are only delivered to public addresses';
  for (const a of failed.attempts) {
    expect(a).toMatchObject({ statusCode: null, error: `address blocked: ${target.name} resolved to ${target.address} (${target.range}); ${why}` });
  }
  // The same with trigger-test; and the receiver never even saw a connection.
  const test = expectOk(await t.api.post(`${W()}/trigger-test`, { event: 'ticket.created' }), 200);
  await waitForDelivery(t, w.id, test.deliveries[0].id, 'failed');
  expect(rx.connections).toBe(0);
  expect(rx.requests).toEqual([]);
  // Failing is not gone: the webhook stays active (5 days of failures would disable it).
  expect(expectOk(await t.api.get(`${W()}/${w.id}`), 200).isActive).toBe(true);
});
