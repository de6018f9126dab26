import Redis from 'ioredis';
import { startGateway, type RunningGateway } from '../src/index';
import { bearer, jsonHeaders, logger, startBackend, startMongo, tokens } from './helpers';

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
