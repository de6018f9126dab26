import { execFile } from 'node:child_process';
import path from 'node:path';

interface SpanLine {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  scope: string;
  attributes: Record<string, unknown>;
}
const SERVER = 1;
const CONSUMER = 4;
const root = path.resolve(__dirname, '../..');

// Auto-instrumentation patches modules as Node loads them, which jest's module system bypasses:
// the platform runs in a child process that starts tracing first, as production's preload does.
test('one trace spans the gateway, the ticketing service and the event consumer', async () => {
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fixtures/traced-platform.ts')], {
      cwd: root,
      timeout: 150_000,
      maxBuffer: 32 * 1024 * 1024,
      env: { ...process.env, AMQP_URL: '', REDIS_URL: '', MONGO_URL: '', TEST_LOG_LEVEL: 'silent' },
    }, (err, out, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(out))),
  );
  const { status, ticketId, spans } = JSON.parse(stdout.trim().split('\n').pop()!) as { status: number; ticketId: string; spans: SpanLine[] };
  expect(status).toBe(201);

  const route = (s: SpanLine) => String(s.attributes['http.route'] ?? s.attributes['url.path'] ?? s.attributes['http.target'] ?? s.name);
  const post = (s: SpanLine) => s.attributes['http.request.method'] === 'POST';
  const gatewayServer = spans.find((s) => s.kind === SERVER && post(s) && /^\/api\/v1\/teams\/[^/]+\/tickets$/.test(route(s)));
  expect(gatewayServer).toBeDefined();
  const trace = spans.filter((s) => s.traceId === gatewayServer!.traceId);

  // The ticketing service's own server span, reached through the gateway's proxy call.
  const ticketingServer = trace.find((s) => s.kind === SERVER && post(s) && route(s) === '/teams/:teamId/tickets');
  expect(ticketingServer).toBeDefined();
  // The consumer that handled this ticket's ticket.created, published later by the outbox relay.
  const consumer = trace.find((s) => s.kind === CONSUMER && s.name === 'trace-consumer process');
  expect(consumer).toBeDefined();

  // Parent links hold it together: every span of the trace but the root (the test client's call)
  // has its parent in the trace, and the ticketing span descends from the gateway's.
  const ids = new Set(trace.map((s) => s.spanId));
  const roots = trace.filter((s) => !s.parentSpanId || !ids.has(s.parentSpanId));
  expect(roots).toHaveLength(1);
  const ancestors = (s: SpanLine): string[] => {
    const parent = trace.find((p) => p.spanId === s.parentSpanId);
    return parent ? [parent.spanId, ...ancestors(parent)] : [];
  };
  expect(ancestors(ticketingServer!)).toContain(gatewayServer!.spanId);
  expect(ancestors(consumer!)).toContain(ticketingServer!.spanId);
  expect(ticketId).toMatch(/^tkt_/);
}, 180_000);
