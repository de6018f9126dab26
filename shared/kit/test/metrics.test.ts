/**
 * Metrics with correct owners (issue 30 item 2, code side), read from the /metrics text: a process
 * exports only the families it uses (a service: none of the gateway's or webhooks'); the outbox's
 * `service` label is the service, not its database; every service operation has a latency histogram
 * by operation id; consumers a processing-time histogram per event type; health probes are not counted.
 */
import { z } from 'zod';
import { defineOperations, PERMISSIONS } from '@helpdesk/contracts';
import { startEmbeddedMongo, type EmbeddedMongo } from '@helpdesk/mongo-embedded';
import { createLogger, defineService, handlersFor, InternalTokens, MemoryBus, metricsText, on, requestsTotal, startMetricsServer, startService } from '../src';
import { envelope } from './bus/fixtures';

const logger = createLogger('metrics-test', 'silent');
const tokens = new InternalTokens('m'.repeat(32));
const TEAM = '3f1c2a4e-8b7d-4c2a-9f1e-2b3c4d5e6f70';
let mongo: EmbeddedMongo;
beforeAll(async () => {
  mongo = await startEmbeddedMongo();
});
afterAll(() => mongo.close());

const OPS = defineOperations({
  echoNote: {
    service: 'demo', tag: 'Notes', method: 'POST', path: '/teams/{teamId}/echo', summary: 'Echo', permission: null,
    keys: 'staff', params: { teamId: 'team' }, body: z.strictObject({ text: z.string().min(1) }),
    success: { status: 201, data: z.object({ text: z.string() }), shape: 'envelope' }, errors: [],
  },
});

const families = (text: string) => new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));

test("a service's /metrics: its own families only, its name on the outbox, per-operation and per-event-type histograms, no probes", async () => {
  const before = families(await metricsText());
  for (const f of before) expect(f).not.toMatch(/^helpdesk_(gateway|webhook|outbox|service|consumer)_/);

  const bus = new MemoryBus(logger);
  const def = defineService({
    name: 'demo',
    operations: OPS,
    models: () => ({}),
    rules: () => ({}),
    handlers: () => handlersFor(OPS)({ echoNote: async ({ body }) => ({ text: body.text }) }),
    consumers: () => [on('ticket.created', async () => undefined)],
  });
  // Its database is not named after it: the outbox label must still say `demo`.
  const svc = await startService(def, { mongoUrl: mongo.uri(), dbName: 'demo_database', bus, tokens, logger });
  const server = await startMetricsServer(0, '127.0.0.1');
  try {
    const token = await tokens.sign({ teamId: TEAM, mode: 'test', keyId: 'key_x', keyType: 'secret', memberId: null, permissions: [...PERMISSIONS], requestId: 'req_metrics01' });
    const call = (body: unknown) => fetch(`${svc.url}/teams/${TEAM}/echo`, { method: 'POST', headers: { 'x-internal-token': token, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await call({ text: 'hi' })).status).toBe(201);
    expect((await call({})).status).toBe(400);
    for (const probe of ['/healthz', '/readyz', '/healthz']) expect((await fetch(svc.url + probe)).status).toBe(200);
    await bus.publish([envelope('ticket.created')], { publisher: 'ticketing' });
    await bus.idle();

    const text = await (await fetch(server.url)).text();
    const mine = families(text);
    expect([...mine].filter((f) => /^helpdesk_(gateway|webhook)_/.test(f))).toEqual([]);
    expect(text).toMatch(/^helpdesk_service_request_duration_seconds_count\{service="demo",operation="echoNote",status="201"\} 1$/m);
    expect(text).toMatch(/^helpdesk_service_request_duration_seconds_count\{service="demo",operation="echoNote",status="400"\} 1$/m);
    expect(text).not.toMatch(/operation="(unmatched|probe)"|healthz|readyz/);
    expect(text).toMatch(/^helpdesk_service_request_duration_seconds_bucket\{le="0\.005",service="demo",operation="echoNote",status="201"\} \d+$/m);
    expect(text).toMatch(/^helpdesk_consumer_processing_seconds_count\{queue="demo",type="ticket\.created",outcome="acked"\} 1$/m);
    expect(text).toMatch(/^helpdesk_outbox_backlog\{service="demo"\} 0$/m);
    expect(text).toMatch(/^helpdesk_outbox_oldest_unpublished_age_seconds\{service="demo"\} 0$/m);
    expect(text).not.toContain('demo_database');

    // A family joins the registry at its first use (the gateway's, here, only once used).
    requestsTotal.inc({ operation: 'createTicket', status: '201' });
    expect(await metricsText()).toMatch(/^helpdesk_gateway_requests_total\{operation="createTicket",status="201"\} 1$/m);
  } finally {
    await server.stop();
    await svc.stop();
    await bus.close();
  }
});
