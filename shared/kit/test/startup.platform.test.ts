/**
 * Failing loudly at start, against RabbitMQ (the infra pass: AMQP_URL set): a refused password ends
 * the process non-zero with the cause in one line naming AMQP_URL without the password; a broker
 * that is down at start leaves the port answering (/healthz 200, /readyz 503 naming the broker) until
 * it comes up.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { createServer } from 'node:net';
import { startEmbeddedMongo, type EmbeddedMongo } from '@helpdesk/mongo-embedded';
import { AmqpBus, createLogger, InternalTokens, startService, type RunningService } from '../src';
import { tinyService } from './fixtures/tiny-definition';
import { PrivateBroker } from './bus/broker';
import { embeddedMongoAvailable } from './outbox/mongo';

const run = process.env.AMQP_URL && embeddedMongoAvailable ? describe : describe.skip;
const SECRET = 't'.repeat(40);
const logger = createLogger('startup-test', 'silent');

/** A port nothing listens on now. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** Runs the tiny service's process (as a container runs main.ts) until it exits: its exit code and output. */
function runTinyService(env: Record<string, string>, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  const root = path.resolve(__dirname, '../../..');
  const child = spawn(path.join(root, 'node_modules/.bin/tsx'), [path.join(__dirname, 'fixtures/tiny-service.ts')], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

const probe = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as { failing?: string[] } };
};

run('service start-up against RabbitMQ', () => {
  let mongo: EmbeddedMongo;
  beforeAll(async () => {
    mongo = await startEmbeddedMongo();
  }, 60_000);
  afterAll(() => mongo?.close());

  it('a refused password ends the process with exit code 1 and one line naming AMQP_URL, without the password', async () => {
    const shared = new URL(process.env.AMQP_URL!);
    shared.username = 'guest';
    shared.password = 'not-the-password-0451';
    const { code, output } = await runTinyService(
      { MONGO_URL: mongo.uri(), AMQP_URL: shared.toString(), INTERNAL_TOKEN_SECRET: SECRET, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      20_000, // killed (code null) if it is still retrying by then
    );
    expect(code).toBe(1);
    const lines = output.split('\n').filter((l) => l.includes('AMQP_URL='));
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]) as { level: number; msg: string; amqpUrl: string };
    expect(line.level).toBeGreaterThanOrEqual(50); // error
    expect(line.msg).toMatch(/RabbitMQ refused access for AMQP_URL=amqp:\/\/guest:\*\*\*@/);
    expect(line.msg).toMatch(/ACCESS.REFUSED/);
    expect(output).not.toContain('not-the-password-0451');
    expect(output).not.toMatch(/connection failed; retrying/);
  }, 40_000);

  describe('a broker that is down at start (private node on 5693, started later)', () => {
    const broker = new PrivateBroker(`/tmp/helpdesk-rmq-${randomBytes(4).toString('hex')}`, 5693);
    afterAll(async () => {
      await broker.stop().catch(() => undefined);
      rmSync(broker.dir, { recursive: true, force: true });
    }, 60_000);

    it('/healthz 200 and /readyz 503 naming the broker while it waits, then 200 once the broker is up', async () => {
      const bus = new AmqpBus({ url: broker.url, logger, reconnectMinMs: 100, reconnectMaxMs: 500 });
      const def = tinyService('waiting');
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      let svc: RunningService | undefined;
      const starting = startService(def, { mongoUrl: mongo.uri(), dbName: 'startup_waiting', bus, tokens: new InternalTokens(SECRET), logger, port }).then((s) => (svc = s));
      try {
        // The port opens before anything connects; the database comes up, the broker does not.
        let ready = await probe(`${base}/readyz`).catch(() => null);
        for (let i = 0; i < 100 && !(ready?.status === 503 && !ready.body.failing?.includes('mongodb')); i++) {
          await new Promise((r) => setTimeout(r, 100));
          ready = await probe(`${base}/readyz`).catch(() => null);
        }
        expect((await probe(`${base}/healthz`)).status).toBe(200);
        expect(ready).toEqual({ status: 503, body: { status: 'not_ready', service: 'waiting', failing: ['broker', 'startup'] } });
        const other = await fetch(`${base}/anything`);
        expect(other.status).toBe(503);
        expect(((await other.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
        expect(svc).toBeUndefined();

        await broker.start();
        await starting;
        const after = await probe(`${base}/readyz`);
        expect(after).toEqual({ status: 200, body: { status: 'ready', service: 'waiting' } });
        expect((await probe(`${base}/healthz`)).status).toBe(200);
      } finally {
        await starting.catch(() => undefined);
        await svc?.stop();
        await bus.close();
      }
    }, 120_000);
  });
});
