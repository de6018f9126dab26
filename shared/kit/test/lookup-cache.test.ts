import { LookupCache, scopeKey } from '../src/lookup-cache';

/** A load whose answer the test releases when it wants (to interleave it with writes). */
function gate<T>() {
  let release!: (v: T) => void;
  const promise = new Promise<T>((r) => (release = r));
  return { promise, release };
}

describe('LookupCache (docs/adr/0045)', () => {
  it('loads once, then answers from memory until the key is invalidated', async () => {
    const cache = new LookupCache<number>({ enabled: true });
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.get('a', load)).toBe(1);
    expect(await cache.get('a', load)).toBe(1);
    expect(await cache.get('b', load)).toBe(2);
    cache.invalidate('a');
    expect(await cache.get('a', load)).toBe(3);
    expect(await cache.get('b', load)).toBe(2);
    cache.invalidate();
    expect(await cache.get('b', load)).toBe(4);
  });

  it('disabled, it always loads', async () => {
    const cache = new LookupCache<number>({ enabled: false });
    let loads = 0;
    const load = async () => ++loads;
    await cache.get('a', load);
    await cache.get('a', load);
    expect(loads).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('a load under way while a write invalidates is answered but not kept (it may predate the write)', async () => {
    const cache = new LookupCache<string>({ enabled: true });
    const slow = gate<string>();
    const reading = cache.get('team', () => slow.promise);
    // The write commits and invalidates while the read is still out.
    await cache.afterWrite('team', async () => undefined);
    slow.release('before the write');
    expect(await reading).toBe('before the write');
    expect(await cache.get('team', async () => 'after the write')).toBe('after the write');
  });

  it('afterWrite invalidates when the write fails too (it may have committed)', async () => {
    const cache = new LookupCache<string>({ enabled: true });
    await cache.get('k', async () => 'old');
    await expect(cache.afterWrite('k', async () => Promise.reject(new Error('lost')))).rejects.toThrow('lost');
    expect(await cache.get('k', async () => 'new')).toBe('new');
  });

  it('keeps at most maxEntries keys (oldest dropped first), each at most ttlMs', async () => {
    // The clock is moved by hand: a loaded machine must not expire an entry between two lines.
    let now = 1_000_000;
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const cache = new LookupCache<string>({ enabled: true, maxEntries: 2, ttlMs: 50 });
      await cache.get('a', async () => 'a1');
      await cache.get('b', async () => 'b1');
      await cache.get('c', async () => 'c1');
      expect(cache.size).toBe(2);
      expect(await cache.get('a', async () => 'a2')).toBe('a2');
      now += 49;
      expect(await cache.get('c', async () => 'c2')).toBe('c1');
      now += 1;
      expect(await cache.get('c', async () => 'c3')).toBe('c3');
    } finally {
      clock.mockRestore();
    }
  });

  it('keeps only what `keep` accepts', async () => {
    const cache = new LookupCache<string | null>({ enabled: true, keep: (v) => v !== null });
    expect(await cache.get('m', async () => null)).toBeNull();
    expect(await cache.get('m', async () => 'Ann')).toBe('Ann');
    expect(await cache.get('m', async () => 'Bob')).toBe('Ann');
  });

  it('keys a team’s partition', () => {
    expect(scopeKey({ teamId: 't1', mode: 'test' })).not.toBe(scopeKey({ teamId: 't1', mode: 'live' }));
  });
});
