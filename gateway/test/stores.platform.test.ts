import Redis from 'ioredis';
import {
  MemoryIdempotencyStore,
  MemoryRateLimitStore,
  RedisIdempotencyStore,
  RedisRateLimitStore,
  type IdempotencyStore,
  type RateLimitStore,
} from '../src/store/rate-limits-and-idempotency';
import { newSecretsKey, SecretBox } from '@helpdesk/kit';

/** One contract, two implementations: memory always, Redis when REDIS_URL is set. */
function contract(name: string, make: () => Promise<{ rl: RateLimitStore; idem: IdempotencyStore; done: () => Promise<void> }>) {
  describe(name, () => {
    let rl: RateLimitStore;
    let idem: IdempotencyStore;
    let done: () => Promise<void>;
    beforeAll(async () => {
      ({ rl, idem, done } = await make());
    });
    afterAll(async () => {
      await done();
    });

    it('counts hits in a fixed window and reports its end', async () => {
      const t0 = Date.now();
      const a = await rl.hit('a', 60_000);
      const b = await rl.hit('a', 60_000);
      expect([a.count, b.count]).toEqual([1, 2]);
      expect(a.resetAtMs).toBeGreaterThan(t0 + 59_000);
      expect(Math.abs(b.resetAtMs - a.resetAtMs)).toBeLessThan(1000);
      expect((await rl.hit('b', 60_000)).count).toBe(1);
    });

    it('starts a new window after the old one ends', async () => {
      await rl.hit('short', 150);
      expect((await rl.hit('short', 150)).count).toBe(2);
      await new Promise((r) => setTimeout(r, 250));
      expect((await rl.hit('short', 150)).count).toBe(1);
    });

    it('is exact under concurrency', async () => {
      const hits = await Promise.all(Array.from({ length: 300 }, () => rl.hit('c', 60_000)));
      expect(new Set(hits.map((h) => h.count)).size).toBe(300);
      expect(Math.max(...hits.map((h) => h.count))).toBe(300);
    });

    it('idempotency: claim once, then in progress, then the stored response; release frees it', async () => {
      expect(await idem.begin('k1', 'fp', 10_000)).toBeNull();
      expect(await idem.begin('k1', 'fp', 10_000)).toEqual({ state: 'in_progress', fingerprint: 'fp' });
      const rec = { state: 'done' as const, fingerprint: 'fp', status: 500, contentType: 'application/json; charset=utf-8', body: Buffer.from('{"a":1}').toString('base64') };
      await idem.complete('k1', rec, 10_000);
      expect(await idem.begin('k1', 'other', 10_000)).toEqual(rec);
      expect(await idem.begin('k2', 'fp', 10_000)).toBeNull();
      await idem.release('k2');
      expect(await idem.begin('k2', 'fp', 10_000)).toBeNull();
    });

    it('idempotency: concurrent claims, exactly one wins', async () => {
      const r = await Promise.all(Array.from({ length: 50 }, () => idem.begin('k3', 'fp', 10_000)));
      expect(r.filter((x) => x === null)).toHaveLength(1);
    });

    it('idempotency: the lock lease expires', async () => {
      expect(await idem.begin('k4', 'fp', 100)).toBeNull();
      await new Promise((r) => setTimeout(r, 200));
      expect(await idem.begin('k4', 'fp', 100)).toBeNull();
    });
  });
}

contract('memory stores', async () => {
  const rl = new MemoryRateLimitStore();
  const idem = new MemoryIdempotencyStore();
  return { rl, idem, done: async () => {} };
});

const REDIS_URL = process.env.REDIS_URL;
(REDIS_URL ? contract : (n: string) => describe.skip(n, () => it('needs REDIS_URL', () => {})))('redis stores', async () => {
  const redis = new Redis(REDIS_URL!, { enableAutoPipelining: true });
  const prefix = `hd:test:${process.pid}:${Date.now()}:`;
  return {
    rl: new RedisRateLimitStore(redis, prefix),
    idem: new RedisIdempotencyStore(redis, prefix),
    done: async () => {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    },
  };
});

/** The same contract with answers sealed (docs/adr/0067), and what Redis holds is no answer in the clear. */
(REDIS_URL ? describe : describe.skip)('redis stores with a key of secrets at rest', () => {
  const box = new SecretBox(newSecretsKey());
  const prefix = `hd:test:sealed:${process.pid}:${Date.now()}:`;
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(REDIS_URL!, { enableAutoPipelining: true });
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it('keeps the answer sealed, replays it in the clear, and reads records kept before sealing', async () => {
    const idem = new RedisIdempotencyStore(redis, prefix, false, box);
    const key = 'sk-answer';
    const answer = Buffer.from('{"key":"sk_live_0123456789abcdefghijklmn"}').toString('base64');
    expect(await idem.begin(key, 'fp', 10_000)).toBeNull();
    await idem.complete(key, { state: 'done', fingerprint: 'fp', status: 201, contentType: 'application/json', body: answer }, 10_000);
    const raw = (await redis.get(prefix + key))!;
    expect(raw).not.toContain(answer);
    expect(raw).toMatch(/\|enc:v1:/);
    expect(await idem.begin(key, 'fp', 10_000)).toMatchObject({ state: 'done', status: 201, body: answer });
    // A record written by a gateway without a key (before sealing) still replays.
    await new RedisIdempotencyStore(redis, prefix).complete('plain', { state: 'done', fingerprint: 'fp', status: 201, contentType: null, body: answer }, 10_000);
    expect(await idem.begin('plain', 'fp', 10_000)).toMatchObject({ body: answer });
  });
});
