import { execFile } from 'node:child_process';
import http from 'node:http';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const SERVER = 2;
const PRODUCER = 4;
const CONSUMER = 5;

interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  kind: number;
  attributes?: Array<{ key: string; value: { stringValue?: string; intValue?: string | number } }>;
}
interface OtlpJson {
  resourceSpans: Array<{
    resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans: Array<{ scope: { name: string }; spans: OtlpSpan[] }>;
  }>;
}

const attr = (s: OtlpSpan, key: string) => {
  const v = s.attributes?.find((a) => a.key === key)?.value;
  return v?.stringValue ?? (v?.intValue !== undefined ? String(v.intValue) : undefined);
};

/**
 * Tracing wherever OTEL_EXPORTER_OTLP_ENDPOINT is set (issue 30 item 1): a process whose entry file
 * imports the kit's register module first (as every service's main.ts does), no preload flag, sends
 * OTLP/HTTP (JSON, what the exporter in node_modules sends) to an in-process receiver. One ticket
 * create is one trace spanning the gateway, ticketing, the publish and the consumers of the one-process
 * platform; an idle stretch adds no trace (the relay's polls make no spans); an HTTP request to a
 * platform origin carries `traceparent`, one to an outside server (a webhook receiver) does not. With
 * HELPDESK_PLATFORM=processes, also the processes shape: the gateway, ticketing and the consumers in
 * their own processes (each its OTEL_SERVICE_NAME) over RabbitMQ, one trace.
 */
/** Runs the child fixture in `shape` with an in-process OTLP/HTTP receiver: its last stdout line and every span received. */
async function runTraced(env: NodeJS.ProcessEnv) {
  const bodies: OtlpJson[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const { port } = receiver.address() as { port: number };
  let stdout: string;
  try {
    stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fixtures/otlp-platform.ts')], {
        cwd: ROOT,
        timeout: 230_000,
        maxBuffer: 32 * 1024 * 1024,
        env: {
          ...process.env, MONGO_URL: '', TEST_LOG_LEVEL: 'silent', ...env,
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_SERVICE_NAME: 'helpdesk-otlp-test', OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none',
        },
      }, (err, out, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(out))),
    );
    // Spans a process exported as it stopped may still be on their way.
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    receiver.close();
  }
  const result = JSON.parse(stdout.trim().split('\n').pop()!) as { status: number; ticketId: string; when: string; internal: Record<string, string>[]; external: Record<string, string>[] };
  const spans = bodies.flatMap((b) => b.resourceSpans).flatMap((rs) => {
    const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
    return rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => ({ ...s, service, scope: ss.scope.name })));
  });
  return { result, spans };
}

describe('tracing started by the entry file, exported over OTLP/HTTP', () => {
  it('one ticket create is one trace across the gateway, ticketing, the publish and the consumers; no idle traces; no trace context outside', async () => {
    const { result, spans } = await runTraced({ AMQP_URL: '', REDIS_URL: '', HELPDESK_PLATFORM: 'one-process' });
    expect(result.status).toBe(201);
    expect(result.when).toBe('preload');

    expect(spans.length).toBeGreaterThan(0);
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['helpdesk-otlp-test']));

    const route = (s: OtlpSpan) => attr(s, 'http.route') ?? attr(s, 'url.path') ?? s.name;
    const gateway = spans.find((s) => s.kind === SERVER && /^\/api\/v1\/teams\/[^/]+\/tickets$/.test(route(s)) && attr(s, 'http.request.method') === 'POST');
    expect(gateway).toBeDefined();
    const theTrace = spans.filter((s) => s.traceId === gateway!.traceId);
    expect(theTrace.find((s) => s.kind === SERVER && route(s) === '/teams/:teamId/tickets')).toBeDefined();
    const publish = theTrace.filter((s) => s.kind === PRODUCER || s.name.endsWith(' publish'));
    const consumers = new Set(theTrace.filter((s) => s.kind === CONSUMER).map((s) => attr(s, 'messaging.destination.name')));
    // The publish of ticket.created (the in-process bus's producer span) and its consumers, children of it.
    const created = publish.find((s) => attr(s, 'messaging.destination.name') === 'ticket.created' || attr(s, 'messaging.rabbitmq.destination.routing_key') === 'ticket.created');
    expect(created).toBeDefined();
    const consumerSpans = theTrace.filter((s) => s.kind === CONSUMER && s.parentSpanId === created!.spanId);
    expect(new Set(consumerSpans.map((s) => attr(s, 'messaging.destination.name'))).size).toBeGreaterThanOrEqual(3);
    expect(consumers.size).toBeGreaterThanOrEqual(3);
    const ids = new Set(theTrace.map((s) => s.spanId));
    expect(theTrace.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId)).map((s) => s.name)).toHaveLength(1);

    // No idle traces: no root span from the outbox relay's polls and lease, nor from the services'
    // workers' polls (webhook deliveries, mails, SLA scheduler).
    const idle = spans.filter((s) => !s.parentSpanId && /outbox|deliveries|mails|scheduler_leases/.test(`${attr(s, 'db.collection.name') ?? ''} ${attr(s, 'db.mongodb.collection') ?? ''} ${s.name}`));
    expect(idle.map((s) => s.name)).toEqual([]);
    // Probes are not traced.
    expect(spans.filter((s) => /^\/(healthz|readyz|metrics)$/.test(route(s)))).toEqual([]);

    // Trace context stays inside: the platform origin got traceparent, the outside server nothing of ours.
    expect(result.internal[0]?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    expect(result.external).toHaveLength(1);
    expect(Object.keys(result.external[0]!).filter((h) => /^(traceparent|tracestate|baggage)$/.test(h))).toEqual([]);
  }, 200_000);
  // Opt-in, as the platform suites' processes shape is (HELPDESK_PLATFORM=processes, with AMQP_URL and
  // REDIS_URL): ten processes each loading the OpenTelemetry SDK take about 95 s to boot on a 2-core
  // machine, and start:processes gives each 90 s to be ready.
  const processes = process.env.HELPDESK_PLATFORM === 'processes' && process.env.AMQP_URL && process.env.REDIS_URL ? it : it.skip;
  processes('the processes shape (npm run start:processes, every process on its own): one trace across the gateway, ticketing, the RabbitMQ publish and consumers in other processes', async () => {
    const { result, spans } = await runTraced({ HELPDESK_PLATFORM: 'processes', IDLE_MS: '7000' });
    expect(result.status).toBe(201);
    const route = (s: OtlpSpan) => attr(s, 'http.route') ?? attr(s, 'url.path') ?? s.name;
    const gateway = spans.find((s) => s.kind === SERVER && s.service === 'helpdesk-otlp-test-gateway' && /^\/api\/v1\/teams\/[^/]+\/tickets$/.test(route(s)) && attr(s, 'http.request.method') === 'POST');
    expect(gateway).toBeDefined();
    const theTrace = spans.filter((s) => s.traceId === gateway!.traceId);
    expect(theTrace.find((s) => s.kind === SERVER && s.service === 'helpdesk-otlp-test-ticketing')).toBeDefined();
    const publish = theTrace.find((s) => s.kind === PRODUCER && s.service === 'helpdesk-otlp-test-ticketing' && attr(s, 'messaging.rabbitmq.destination.routing_key') === 'ticket.created');
    expect(publish).toBeDefined();
    const consumerServices = new Set(theTrace.filter((s) => s.kind === CONSUMER && s.parentSpanId === publish!.spanId).map((s) => s.service));
    // Consumed in processes other than the publisher's, each its own service name.
    expect([...consumerServices].filter((n) => n !== 'helpdesk-otlp-test-ticketing').length).toBeGreaterThanOrEqual(2);
    const idle = spans.filter((s) => !s.parentSpanId && /outbox|deliveries|mails|scheduler_leases/.test(`${attr(s, 'db.collection.name') ?? ''} ${s.name}`));
    expect(idle.map((s) => `${s.service} ${s.name}`)).toEqual([]);
  }, 260_000);
});
