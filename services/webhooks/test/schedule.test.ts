/** The retry schedule, Retry-After and the settings' bounds (pure functions). */
import { attemptsPerRun, nextAttemptAt, parseRetryAfter } from '../src/delivery/schedule';
import { DEFAULT_RETRY_SCHEDULE_MS, DEFAULT_SETTINGS, resolveSettings } from '../src/settings';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const now = new Date('2026-01-01T00:00:00.000Z');
const at = (d: Date | null) => (d ? d.getTime() - now.getTime() : null);

describe('the default schedule', () => {
  test('is immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: eight attempts', () => {
    expect(DEFAULT_RETRY_SCHEDULE_MS).toEqual([5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H]);
    expect(attemptsPerRun(DEFAULT_SETTINGS)).toBe(8);
  });

  test.each(DEFAULT_RETRY_SCHEDULE_MS.map((ms, i) => [i + 1, ms]))('after failed attempt %i the wait is %i ms ±10 %', (n, ms) => {
    const f = { attemptsInRun: n, statusCode: 500, retryAfterMs: null };
    expect(at(nextAttemptAt(f, now, DEFAULT_SETTINGS, () => 0))).toBe(Math.round(ms * 0.9));
    expect(at(nextAttemptAt(f, now, DEFAULT_SETTINGS, () => 0.5))).toBe(ms);
    expect(at(nextAttemptAt(f, now, DEFAULT_SETTINGS, () => 0.999999))).toBe(Math.round(ms * 1.1 - ms * 0.2 * 0.000001));
  });

  test('after the eighth failed attempt there is none: the delivery is failed', () => {
    expect(nextAttemptAt({ attemptsInRun: 8, statusCode: 500, retryAfterMs: null }, now, DEFAULT_SETTINGS)).toBeNull();
    expect(nextAttemptAt({ attemptsInRun: 8, statusCode: 429, retryAfterMs: 1000 }, now, DEFAULT_SETTINGS)).toBeNull();
  });

  test('jitter spreads waits across the whole ±10 % band', () => {
    const waits = Array.from({ length: 2000 }, () => at(nextAttemptAt({ attemptsInRun: 3, statusCode: null, retryAfterMs: null }, now, DEFAULT_SETTINGS))!);
    expect(Math.min(...waits)).toBeGreaterThanOrEqual(27 * M);
    expect(Math.max(...waits)).toBeLessThanOrEqual(33 * M);
    expect(Math.max(...waits) - Math.min(...waits)).toBeGreaterThan(4 * M);
  });
});

describe('Retry-After', () => {
  test('parses delta-seconds and HTTP dates; a past date is 0; garbage and absence are null', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(['30', '60'], now)).toBe(30_000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter('-5', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
    expect(parseRetryAfter('', now)).toBeNull();
  });

  test.each([429, 503])('on %i the next attempt is never earlier than Retry-After, even with the lowest jitter', (status) => {
    const next = nextAttemptAt({ attemptsInRun: 1, statusCode: status, retryAfterMs: 120_000 }, now, DEFAULT_SETTINGS, () => 0);
    expect(at(next)).toBe(120_000);
  });

  test('a Retry-After shorter than the scheduled wait does not shorten it', () => {
    const next = nextAttemptAt({ attemptsInRun: 2, statusCode: 429, retryAfterMs: 1_000 }, now, DEFAULT_SETTINGS, () => 0.5);
    expect(at(next)).toBe(5 * M);
  });

  test('is capped at retryAfterMaxMs (10 h by default)', () => {
    const next = nextAttemptAt({ attemptsInRun: 1, statusCode: 503, retryAfterMs: 7 * 24 * H }, now, DEFAULT_SETTINGS, () => 0.5);
    expect(at(next)).toBe(10 * H);
  });

  test('is ignored on other statuses (500) and on network errors', () => {
    expect(at(nextAttemptAt({ attemptsInRun: 1, statusCode: 500, retryAfterMs: H }, now, DEFAULT_SETTINGS, () => 0.5))).toBe(5 * S);
    expect(at(nextAttemptAt({ attemptsInRun: 1, statusCode: null, retryAfterMs: H }, now, DEFAULT_SETTINGS, () => 0.5))).toBe(5 * S);
  });
});

describe('settings', () => {
  test('defaults: loopback refused, 10 s timeout, 5 days of failures disable, 20 webhooks per team', () => {
    expect(resolveSettings()).toEqual(DEFAULT_SETTINGS);
    expect(DEFAULT_SETTINGS).toMatchObject({ allowLoopback: false, timeoutMs: 10_000, failingDisableMs: 5 * 24 * H, maxWebhooksPerTeam: 20 });
  });

  test('the timeout is at most 15 s', () => {
    expect(resolveSettings({ timeoutMs: 15_000 }).timeoutMs).toBe(15_000);
    expect(() => resolveSettings({ timeoutMs: 15_001 })).toThrow(/timeoutMs/);
    expect(() => resolveSettings({ timeoutMs: 0 })).toThrow(/timeoutMs/);
  });

  test('the lease stays longer than an attempt', () => {
    expect(resolveSettings({ timeoutMs: 15_000 }).leaseMs).toBeGreaterThanOrEqual(60_000);
    expect(() => resolveSettings({ timeoutMs: 5_000, leaseMs: 5_000 })).toThrow(/leaseMs/);
  });

  test('undefined overrides keep the defaults', () => {
    expect(resolveSettings({ allowLoopback: undefined, timeoutMs: undefined }).timeoutMs).toBe(10_000);
  });
});
