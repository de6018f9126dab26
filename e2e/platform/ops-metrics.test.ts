/**
 * Metrics of the platform in one process (docs/adr/0038): scraped after a few requests, the
 * counters of the gateway, the outbox, the consumers and (in local runs) the embedded stand-ins
 * have moved. The standalone processes' metrics port is tested in deploy/test/ops-processes.
 */
import { metricsText, startMetricsServer, type MetricsServer } from '@helpdesk/kit';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { eventually, expectOk } from './helpdesk-helpers';

let tp: TestPlatform;
let server: MetricsServer;

const sample = (text: string, name: string, labels: Record<string, string> = {}): number =>
  text
    .split('\n')
    .filter((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)))
    .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);

beforeAll(async () => {
  tp = await startTestPlatform();
  server = await startMetricsServer(0, '127.0.0.1');
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await tp?.stop();
}, 60_000);

it('after a ticket is created: gateway counters, outbox published, consumers delivered; scraped over HTTP', async () => {
  const before = await (await fetch(server.url)).text();
  const ticket = expectOk(await tp.api.post(`${tp.teamPath}/tickets`, { title: 'Metrics please' }), 201);
  expectOk(await tp.api.get(`${tp.teamPath}/tickets/${ticket.id}`), 200);
  await tp.platform.ticketing.relay.drain();
  // ticket.created reaches its consumers (at least webhooks, which takes every event).
  const after = await eventually('deliveries counted', async () => {
    const text = await (await fetch(server.url)).text();
    return sample(text, 'helpdesk_consumer_deliveries_total', { outcome: 'acked' }) > sample(before, 'helpdesk_consumer_deliveries_total', { outcome: 'acked' }) ? text : null;
  });
  const moved = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
  expect(moved('helpdesk_gateway_requests_total', { operation: 'createTicket', status: '201' })).toBe(1);
  expect(moved('helpdesk_gateway_requests_total', { operation: 'getTicket', status: '200' })).toBe(1);
  expect(moved('helpdesk_gateway_rate_limit_decisions_total', { outcome: 'allowed' })).toBeGreaterThanOrEqual(2);
  expect(after).toMatch(/helpdesk_outbox_backlog\{service="ticketing"\} 0/);
  expect(after).toMatch(/helpdesk_outbox_oldest_unpublished_age_seconds\{service="ticketing"\} 0/);
  expect(after).toMatch(/helpdesk_queue_messages\{queue="[^"]*webhooks",kind="dead"\} 0/);
  if (!process.env.MONGO_URL) expect(sample(after, 'helpdesk_embedded_mongo_stats', { stat: 'commands' })).toBeGreaterThan(0);
  if (!process.env.AMQP_URL) expect(after).toMatch(/helpdesk_embedded_store_entries\{store="memory-bus"\} \d+/);
});

it('the same text as the registry; the metrics server answers 404 off /metrics', async () => {
  expect(await metricsText()).toContain('# TYPE helpdesk_gateway_requests_total counter');
  expect((await fetch(server.url.replace('/metrics', '/other'))).status).toBe(404);
});
