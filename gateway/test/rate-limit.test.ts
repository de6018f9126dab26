import { bearer, jsonHeaders, startHarness, type Harness } from './helpers';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ rateLimits: { secretPerMinute: 5, publishablePerMinute: 3 } });
});
afterAll(async () => {
  await h?.stop();
});

const whoami = (key: string) => fetch(`${h.base}/auth/whoami`, { headers: bearer(key) });

it('every response carries the X-RateLimit-* headers and counts down; the 6th request is 429', async () => {
  const { key } = await h.gw.admin.createKey({ teamId: h.team.id, type: 'secret', mode: 'test' });
  const before = Math.floor(Date.now() / 1000);
  // a 404 and a 403 after authentication count too
  const seen: Response[] = [
    await whoami(key),
    await fetch(`${h.base}/nope`, { headers: bearer(key) }),
    await fetch(`${h.base}/teams/${h.other.id}/tickets`, { headers: bearer(key) }),
    await fetch(`${h.teamUrl}/tickets`, { headers: bearer(key) }),
    await whoami(key),
  ];
  expect(seen.map((r) => r.status)).toEqual([200, 404, 403, 200, 200]);
  expect(seen.map((r) => r.headers.get('x-ratelimit-remaining'))).toEqual(['4', '3', '2', '1', '0']);
  for (const r of seen) {
    expect(r.headers.get('x-ratelimit-limit')).toBe('5');
    expect(r.headers.get('x-ratelimit-window')).toBe('60');
    const reset = Number(r.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(before + 59);
    expect(reset).toBeLessThanOrEqual(before + 62);
    expect(r.headers.get('retry-after')).toBeNull();
  }
  const limited = await fetch(`${h.teamUrl}/tickets`, { method: 'POST', headers: jsonHeaders(key), body: '{}' });
  expect(limited.status).toBe(429);
  const body = (await limited.json()) as any;
  expect(body.error.code).toBe('rate_limit_exceeded');
  expect(body.error.type).toBe('rate_limit_error');
  expect(body.error.retryAfter).toBeGreaterThanOrEqual(1);
  expect(body.error.retryAfter).toBeLessThanOrEqual(60);
  expect(limited.headers.get('retry-after')).toBe(String(body.error.retryAfter));
  expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(limited.headers.get('x-svc-request-id')).toBe(body.error.request_id);
});

it('limits are per key: another key of the same team has its own count', async () => {
  const a = await h.gw.admin.createKey({ teamId: h.team.id, type: 'secret', mode: 'test' });
  const b = await h.gw.admin.createKey({ teamId: h.team.id, type: 'secret', mode: 'test' });
  for (let i = 0; i < 5; i++) await whoami(a.key);
  expect((await whoami(a.key)).status).toBe(429);
  expect((await whoami(b.key)).headers.get('x-ratelimit-remaining')).toBe('4');
});

it('publishable keys get their own figure', async () => {
  const { key } = await h.gw.admin.createKey({ teamId: h.team.id, type: 'publishable', mode: 'live' });
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await whoami(key)).status);
  expect(statuses).toEqual([200, 200, 200, 429]);
});

it('a team override replaces the deployment figure', async () => {
  const team = await h.gw.admin.createTeam({ name: 'Big Customer' });
  await h.gw.admin.setTeamRateLimits(team.id, { secretPerMinute: 2 });
  const { key } = await h.gw.admin.createKey({ teamId: team.id, type: 'secret', mode: 'live' });
  const r = await whoami(key);
  expect(r.headers.get('x-ratelimit-limit')).toBe('2');
  await whoami(key);
  expect((await whoami(key)).status).toBe(429);
});

it('401s are not counted (no key, nothing to count)', async () => {
  const { key } = await h.gw.admin.createKey({ teamId: h.team.id, type: 'secret', mode: 'test' });
  const r = await fetch(`${h.base}/auth/whoami`, { headers: bearer(key + 'x') });
  expect(r.status).toBe(401);
  expect(r.headers.get('x-ratelimit-limit')).toBeNull();
  expect((await whoami(key)).headers.get('x-ratelimit-remaining')).toBe('4');
});

describe('exact under concurrency', () => {
  let big: Harness;
  beforeAll(async () => {
    big = await startHarness({ rateLimits: { secretPerMinute: 120 } });
  });
  afterAll(async () => {
    await big?.stop();
  });

  it('200 concurrent requests: exactly 120 pass, 80 are 429, remaining values are all distinct', async () => {
    const { key } = await big.gw.admin.createKey({ teamId: big.team.id, type: 'secret', mode: 'test' });
    const res = await Promise.all(Array.from({ length: 200 }, () => fetch(`${big.teamUrl}/tickets`, { headers: bearer(key) })));
    const ok = res.filter((r) => r.status === 200);
    expect(ok).toHaveLength(120);
    expect(res.filter((r) => r.status === 429)).toHaveLength(80);
    const remaining = new Set(ok.map((r) => r.headers.get('x-ratelimit-remaining')));
    expect(remaining.size).toBe(120);
    await Promise.all(res.map((r) => r.arrayBuffer()));
  });
});
