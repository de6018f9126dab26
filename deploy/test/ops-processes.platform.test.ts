// The processes as an operator starts them (docs/adr/0038): real `node --require tsx/cjs …/main.ts`
// processes, with and without their variables. Without: they refuse to start, naming each missing
// variable. With: /healthz, /readyz (503 naming the part that is down) and Prometheus metrics on
// their own port, whose counters move with requests. Real RabbitMQ and Redis when AMQP_URL and
// REDIS_URL are set (the second CI pass); the development switch HELPDESK_EMBEDDED=1 otherwise.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { startEmbeddedMongo, type EmbeddedMongo } from '@helpdesk/mongo-embedded';
import { createGatewayAdmin } from '../../gateway/src/admin';

const ROOT = path.resolve(__dirname, '..', '..');
const SECRET = 'ops-test-secret-'.padEnd(40, 'x');
const AMQP_URL = process.env.AMQP_URL;
const REDIS_URL = process.env.REDIS_URL;
const tag = `ops${randomBytes(3).toString('hex')}`;

interface Proc {
  child: ChildProcess;
  output: () => string;
  /** The first match of `re` in the output (rejects when the process exits first). */
  waitFor(re: RegExp): Promise<RegExpExecArray>;
  exit: Promise<number | null>;
}

const running: Proc[] = [];

/** Starts an entry file as the Dockerfile does, with exactly `env` (plus PATH). */
function start(entry: string, env: Record<string, string>): Proc {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', entry], { cwd: ROOT, env: { PATH: process.env.PATH!, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const proc: Proc = {
    child,
    output: () => out,
    exit,
    waitFor: (re) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(out);
          if (m) {
            listeners.delete(check);
            resolve(m);
          }
        };
        listeners.add(check);
        check();
        void exit.then((code) => reject(new Error(`exited ${code} before ${re}: ${out}`)));
      }),
  };
  running.push(proc);
  return proc;
}

async function stop(p: Proc): Promise<number | null> {
  if (p.child.exitCode === null) p.child.kill('SIGTERM');
  return p.exit;
}

/** A TCP relay to Redis that the test can cut, as a network failure would. */
async function cuttableRelay(target: URL): Promise<{ url: string; cut(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    client.pipe(upstream).pipe(client);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `redis://127.0.0.1:${port}`,
    cut: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

const metric = (text: string, name: string, labels: Record<string, string>): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => l.includes(`${k}="${v}"`)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
};

afterAll(async () => {
  await Promise.all(running.map(stop));
});

describe('without their servers, standalone processes refuse to start and name every missing variable', () => {
  it('a service: MONGO_URL, AMQP_URL, INTERNAL_TOKEN_SECRET', async () => {
    const p = start('services/customers/src/main.ts', { AMQP_URL: '' });
    expect(await p.exit).toBe(1);
    expect(p.output()).toMatch(/MONGO_URL: required/);
    expect(p.output()).toMatch(/AMQP_URL: required \(or HELPDESK_EMBEDDED=1/);
    expect(p.output()).toMatch(/INTERNAL_TOKEN_SECRET: required/);
  });

  // A partial SERVICE_URLS is a valid gateway (services deploy one at a time): gateway/test/main-subset.platform.test.ts.
  it('the gateway: REDIS_URL, SERVICE_URLS and SECRETS_KEY', async () => {
    const p = start('gateway/src/main.ts', { MONGO_URL: 'mongodb://127.0.0.1:1/x', INTERNAL_TOKEN_SECRET: SECRET });
    expect(await p.exit).toBe(1);
    expect(p.output()).toMatch(/REDIS_URL: required \(or HELPDESK_EMBEDDED=1/);
    expect(p.output()).toMatch(/SERVICE_URLS: required/);
    expect(p.output()).toMatch(/SECRETS_KEY: required \(or HELPDESK_EMBEDDED=1/);
  });
});

describe(`with their servers (${AMQP_URL ? 'RabbitMQ' : 'HELPDESK_EMBEDDED=1: in-process bus'}, ${REDIS_URL ? 'Redis' : 'in-memory gateway stores'})`, () => {
  let mongo: EmbeddedMongo;
  let customersUrl: string;
  let customersMetrics: string;
  let gatewayUrl: string;
  let gatewayMetrics: string;
  let relay: Awaited<ReturnType<typeof cuttableRelay>> | null = null;
  let gateway: Proc;

  beforeAll(async () => {
    mongo = await startEmbeddedMongo();
    const base = mongo.uri().replace(/\/[^/?]*(\?|$)/, '/$1');
    const common = { INTERNAL_TOKEN_SECRET: SECRET, METRICS_PORT: '0', LOG_LEVEL: 'info' };
    const customers = start('services/customers/src/main.ts', {
      ...common,
      PORT: '0',
      // The database named in the URL is the one used (docs/adr/0038).
      MONGO_URL: base.replace(/\/(\?|$)/, `/${tag}_customers$1`),
      ...(AMQP_URL ? { AMQP_URL, AMQP_EXCHANGE: `${tag}.events`, AMQP_QUEUE_PREFIX: tag } : { HELPDESK_EMBEDDED: '1' }),
    });
    const m = await customers.waitFor(/"url":"([^"]+)","metrics":"([^"]+)"/);
    customersUrl = m[1];
    customersMetrics = m[2];
    if (REDIS_URL) relay = await cuttableRelay(new URL(REDIS_URL));
    gateway = start('gateway/src/main.ts', {
      ...common,
      PORT: '0',
      HOST: '127.0.0.1',
      MONGO_URL: mongo.uri(),
      SERVICE_URLS: `customers=${customersUrl}`,
      // Only customers runs here: the development switch lets the other services' routes answer 503.
      HELPDESK_EMBEDDED: '1',
      ...(relay ? { REDIS_URL: relay.url, REDIS_KEY_PREFIX: `${tag}:` } : {}),
    });
    const g = await gateway.waitFor(/"url":"([^"]+)","metrics":"([^"]+)"/);
    gatewayUrl = g[1];
    gatewayMetrics = g[2];
  }, 60_000);

  afterAll(async () => {
    await Promise.all(running.map(stop));
    await relay?.cut();
    await mongo?.close();
  });

  it('a service: /healthz and /readyz (database and broker), metrics labelled with the service (not its database)', async () => {
    expect(await (await fetch(`${customersUrl}/healthz`)).json()).toEqual({ status: 'ok', service: 'customers' });
    const ready = await fetch(`${customersUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', service: 'customers' });
    const text = await (await fetch(customersMetrics)).text();
    expect(text).toMatch(/helpdesk_outbox_backlog\{service="customers"\} 0/);
    expect(text).not.toContain(`${tag}_customers`);
    expect(text).toContain('helpdesk_process_cpu_user_seconds_total');
    // The metrics port serves metrics only; the API port has no /metrics.
    expect((await fetch(`${customersUrl}/metrics`)).status).not.toBe(200);
  });

  it('the gateway: counters per operation and status, rate-limit and idempotency outcomes move with requests; /metrics is not public', async () => {
    const admin = await createGatewayAdmin(mongo.uri(), 'gateway');
    const team = await admin.createTeam({ name: 'Ops' });
    const { key } = await admin.createKey({ teamId: team.id, type: 'secret', mode: 'test', memberId: null });
    await admin.close();
    const before = await (await fetch(gatewayMetrics)).text();
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `${tag}-1` };
    const body = JSON.stringify({ name: 'Ada', email: `ada.${tag}@example.com` });
    const created = await fetch(`${gatewayUrl}/teams/${team.id}/customers`, { method: 'POST', headers, body });
    expect(created.status).toBe(201);
    const replayed = await fetch(`${gatewayUrl}/teams/${team.id}/customers`, { method: 'POST', headers, body });
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect((await fetch(`${gatewayUrl}/auth/whoami`)).status).toBe(401);
    // A service that is not running: 503 for its routes only, counted.
    expect((await fetch(`${gatewayUrl}/teams/${team.id}/tickets`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(503);
    const after = await (await fetch(gatewayMetrics)).text();
    const moved = (name: string, labels: Record<string, string>) => metric(after, name, labels) - metric(before, name, labels);
    expect(moved('helpdesk_gateway_requests_total', { operation: 'createCustomer', status: '201' })).toBe(2);
    expect(moved('helpdesk_gateway_requests_total', { operation: 'whoami', status: '401' })).toBe(1);
    expect(moved('helpdesk_gateway_request_duration_seconds_count', { operation: 'createCustomer', status: '201' })).toBe(2);
    expect(moved('helpdesk_gateway_rate_limit_decisions_total', { outcome: 'allowed' })).toBe(3);
    expect(moved('helpdesk_gateway_idempotency_outcomes_total', { outcome: 'claimed' })).toBe(1);
    expect(moved('helpdesk_gateway_idempotency_outcomes_total', { outcome: 'replayed' })).toBe(1);
    expect(moved('helpdesk_gateway_upstream_unavailable_total', { service: 'ticketing' })).toBe(1);
    expect((await fetch(`${gatewayUrl.replace(/\/api\/v1$/, '')}/metrics`)).status).toBe(404);
  });

  (REDIS_URL ? it : it.skip)('the gateway: /readyz answers 503 naming redis once Redis is unreachable; /healthz stays ok', async () => {
    const root = gatewayUrl.replace(/\/api\/v1$/, '');
    expect((await fetch(`${root}/readyz`)).status).toBe(200);
    await relay!.cut();
    let answer = await fetch(`${root}/readyz`);
    for (let i = 0; i < 100 && answer.status === 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      answer = await fetch(`${root}/readyz`);
    }
    expect(answer.status).toBe(503);
    expect(await answer.json()).toMatchObject({ success: false, error: { code: 'service_unavailable', failing: ['redis'] } });
    expect((await fetch(`${root}/healthz`)).status).toBe(200);
  });
});
