import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import Redis from 'ioredis';
import { startGateway, type RunningGateway } from '../src/index';
import { bearer, jsonHeaders, logger, SECRET, startBackend, startMongo, tokens } from './helpers';

const REDIS_URL = process.env.REDIS_URL;

/** Two gateway processes' worth of gateways sharing one Redis (and one database). */
(REDIS_URL ? describe : describe.skip)('two gateways sharing Redis', () => {
  const prefix = `hd:test:${process.pid}:${Date.now()}:`;
  let a: RunningGateway;
  let b: RunningGateway;
  let mongo: Awaited<ReturnType<typeof startMongo>>;
  let backend: Awaited<ReturnType<typeof startBackend>>;
  let key: string;
  let teamId: string;

  beforeAll(async () => {
    mongo = await startMongo();
    backend = await startBackend();
    const common = {
      port: 0,
      mongoUrl: mongo.uri(),
      dbName: `gw_shared_${Date.now()}`,
      redisUrl: REDIS_URL,
      redisKeyPrefix: prefix,
      tokens,
      services: { ticketing: backend.url },
      logger,
      rateLimits: { secretPerMinute: 120 },
    };
    a = await startGateway(common);
    b = await startGateway(common);
    const team = await a.admin.createTeam({ name: 'Shared' });
    teamId = team.id;
    key = (await a.admin.createKey({ teamId, type: 'secret', mode: 'test' })).key;
  });

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await backend?.stop();
    await mongo?.close();
    const redis = new Redis(REDIS_URL!);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('together they allow exactly the limit (200 concurrent requests split over both)', async () => {
    const res = await Promise.all(
      Array.from({ length: 200 }, (_, i) => fetch(`${(i % 2 ? a : b).url}/teams/${teamId}/tickets`, { headers: bearer(key) })),
    );
    expect(res.filter((r) => r.status === 200)).toHaveLength(120);
    expect(res.filter((r) => r.status === 429)).toHaveLength(80);
    await Promise.all(res.map((r) => r.arrayBuffer()));
  });

  it('an idempotency key claimed on one gateway is replayed by the other', async () => {
    const { key: k2 } = await a.admin.createKey({ teamId, type: 'secret', mode: 'test' });
    const idem = `shared-${Date.now()}`;
    const calls = backend.calls();
    const body = '{"title":"x","delayMs":200}';
    const res = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetch(`${(i % 2 ? a : b).url}/teams/${teamId}/tickets`, { method: 'POST', headers: jsonHeaders(k2, { 'idempotency-key': idem }), body }),
      ),
    );
    expect(res.filter((r) => r.status === 201)).toHaveLength(1);
    expect(res.filter((r) => r.status === 409)).toHaveLength(19);
    const replay = await fetch(`${b.url}/teams/${teamId}/tickets`, { method: 'POST', headers: jsonHeaders(k2, { 'idempotency-key': idem }), body });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(backend.calls()).toBe(calls + 1);
  });
});

/** The same across two OS processes: this one and gateway/src/main.ts in a child. */
(REDIS_URL ? describe : describe.skip)('two gateway processes sharing Redis', () => {
  const prefix = `hd:test:${process.pid}:${Date.now()}:proc:`;
  const dbName = `gw_proc_${Date.now()}`;
  let a: RunningGateway;
  let child: ChildProcess;
  let childUrl: string;
  let mongo: Awaited<ReturnType<typeof startMongo>>;
  let backend: Awaited<ReturnType<typeof startBackend>>;

  beforeAll(async () => {
    mongo = await startMongo();
    backend = await startBackend();
    a = await startGateway({
      port: 0,
      mongoUrl: mongo.uri(),
      dbName,
      redisUrl: REDIS_URL,
      redisKeyPrefix: prefix,
      tokens,
      services: { ticketing: backend.url },
      logger,
      rateLimits: { secretPerMinute: 120 },
    });
    const root = resolve(__dirname, '..', '..');
    child = spawn(join(root, 'node_modules', '.bin', 'tsx'), ['gateway/src/main.ts'], {
      cwd: root,
      env: {
        ...process.env,
        PORT: '0',
        METRICS_PORT: '0',
        HOST: '127.0.0.1',
        MONGO_URL: mongo.uri(),
        MONGO_DB: dbName,
        REDIS_URL,
        REDIS_KEY_PREFIX: prefix,
        INTERNAL_TOKEN_SECRET: SECRET,
        SERVICE_URLS: `ticketing=${backend.url}`,
        // One service behind it, as the in-process gateway has: the documented switch allows the others' absence.
        HELPDESK_EMBEDDED: '1',
        RATE_LIMIT_SECRET_PER_MINUTE: '120',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    childUrl = await new Promise<string>((res, rej) => {
      let out = '';
      child.stdout!.on('data', (d) => {
        out += d;
        const m = /"url":"([^"]+)"/.exec(out);
        if (m) res(m[1]);
      });
      child.on('exit', (code) => rej(new Error(`gateway child exited ${code}`)));
    });
  }, 30_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await a?.stop();
    await backend?.stop();
    await mongo?.close();
    const redis = new Redis(REDIS_URL!);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('200 concurrent requests over both processes: exactly 120 pass', async () => {
    const team = await a.admin.createTeam({ name: 'Two Processes' });
    const { key } = await a.admin.createKey({ teamId: team.id, type: 'secret', mode: 'test' });
    const res = await Promise.all(
      Array.from({ length: 200 }, (_, i) => fetch(`${i % 2 ? a.url : childUrl}/teams/${team.id}/tickets`, { headers: bearer(key) })),
    );
    const byStatus = (s: number) => res.filter((r) => r.status === s).length;
    expect({ ok: byStatus(200), limited: byStatus(429) }).toEqual({ ok: 120, limited: 80 });
    await Promise.all(res.map((r) => r.arrayBuffer()));
  }, 30_000);
});
