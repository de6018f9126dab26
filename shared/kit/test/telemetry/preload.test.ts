import { execFile } from 'node:child_process';
import http from 'node:http';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../../..');

interface OtlpJson {
  resourceSpans: Array<{
    resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans: Array<{ scope: { name: string }; spans: Array<{ name: string; traceId: string; parentSpanId?: string; kind: number }> }>;
  }>;
}

/**
 * The documented way to start tracing in a process (`--require …/telemetry/register.ts`, configured by
 * OTEL_SERVICE_NAME and OTEL_EXPORTER_OTLP_ENDPOINT): a child process sends its spans to a fake OTLP/HTTP
 * collector, and the auto-instrumented http client and server spans are one trace.
 */
describe('telemetry preload (node --require register.ts)', () => {
  it('exports auto-instrumented spans of modules loaded after it to the OTLP/HTTP endpoint', async () => {
    const bodies: OtlpJson[] = [];
    const collector = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (req.url === '/v1/traces') bodies.push(JSON.parse(body));
        res.setHeader('content-type', 'application/json');
        res.end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', () => r()));
    const { port } = collector.address() as { port: number };
    try {
      await new Promise<void>((resolve, reject) =>
        execFile(
          process.execPath,
          ['--require', 'tsx/cjs', '--require', path.join(ROOT, 'shared/kit/src/telemetry/register.ts'), path.join(__dirname, 'fixtures/http-child.ts')],
          {
            cwd: ROOT,
            timeout: 20_000,
            env: { PATH: process.env.PATH, OTEL_SERVICE_NAME: 'preload-probe', OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_METRICS_EXPORTER: 'none', OTEL_LOGS_EXPORTER: 'none' },
          },
          (err, _stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve()),
        ),
      );
    } finally {
      collector.close();
    }
    const spans = bodies.flatMap((b) => b.resourceSpans).flatMap((rs) => {
      const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
      return rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => ({ ...s, service, scope: ss.scope.name })));
    });
    const httpSpans = spans.filter((s) => s.scope === '@opentelemetry/instrumentation-http');
    expect(httpSpans.map((s) => s.kind).sort()).toEqual([2, 3]); // SERVER and CLIENT
    expect(new Set(httpSpans.map((s) => s.traceId)).size).toBe(1); // the server span joined the client's trace
    expect(httpSpans.every((s) => s.service === 'preload-probe')).toBe(true);
  });
});
