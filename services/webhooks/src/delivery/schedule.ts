import type { WebhookSettings } from '../settings';

type ScheduleSettings = Pick<WebhookSettings, 'retryScheduleMs' | 'jitter' | 'retryAfterMaxMs'>;

/** Attempts a delivery gets on one run of the schedule: the first, plus one per wait. */
export const attemptsPerRun = (s: Pick<WebhookSettings, 'retryScheduleMs'>) => s.retryScheduleMs.length + 1;

/**
 * `Retry-After` as milliseconds from `now`: delta-seconds (`120`) or an HTTP date
 * (`Wed, 21 Oct 2026 07:28:00 GMT`); a date in the past is 0. Null when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | null {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return null;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // An HTTP date names its day and zone in letters; `Date.parse` alone would read '-5' as a year.
  const at = /[a-z]/i.test(v) ? Date.parse(v) : NaN;
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now.getTime());
}

/** Statuses whose `Retry-After` is honoured. */
export const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

export interface FailedAttempt {
  /** Attempts made on this run of the schedule, this one included (1 after the first attempt). */
  attemptsInRun: number;
  statusCode: number | null;
  retryAfterMs: number | null;
}

/**
 * When to try again after a failed attempt, or null when the schedule is exhausted (the delivery is
 * then failed). The wait is the schedule's step with ±jitter; on 429/503 never earlier than
 * `Retry-After`, which itself is capped at `retryAfterMaxMs`.
 */
export function nextAttemptAt(failed: FailedAttempt, now: Date, s: ScheduleSettings, random: () => number = Math.random): Date | null {
  const step = s.retryScheduleMs[failed.attemptsInRun - 1];
  if (step === undefined) return null;
  let wait = Math.round(step * (1 + s.jitter * (2 * random() - 1)));
  if (failed.statusCode !== null && RETRY_AFTER_STATUSES.has(failed.statusCode) && failed.retryAfterMs !== null) {
    wait = Math.max(wait, Math.min(failed.retryAfterMs, s.retryAfterMaxMs));
  }
  return new Date(now.getTime() + wait);
}
