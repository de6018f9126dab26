import { ANALYTICS_RANGE_DAYS_MAX, type AnalyticsPeriod } from '@helpdesk/contracts';
import { parameterInvalid } from '@helpdesk/kit';

const DAY_MS = 86_400_000;
/** The rolling periods, each ending now (docs/adr/0030). */
export const PERIOD_DAYS: Record<Exclude<AnalyticsPeriod, 'custom'>, number> = { day: 1, week: 7, month: 30, quarter: 90, year: 365 };

/** A date-only value is midnight UTC; `endDate` given as a date covers that whole day. */
function parseDate(value: string, end: boolean): Date {
  const d = new Date(value);
  return end && /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(d.getTime() + DAY_MS) : d;
}

/** The range a query asks about: its dates, else the `fallbackDays` before now; 400 when reversed or too long. */
export function rangeOf(startDate: string | undefined, endDate: string | undefined, fallbackDays: number, now: Date) {
  const end = endDate ? parseDate(endDate, true) : now;
  const start = startDate ? parseDate(startDate, false) : new Date(end.getTime() - fallbackDays * DAY_MS);
  if (start >= end) throw parameterInvalid('endDate', 'Invalid endDate: must be after startDate.');
  if (end.getTime() - start.getTime() > ANALYTICS_RANGE_DAYS_MAX * DAY_MS) {
    throw parameterInvalid('startDate', `Invalid startDate: a range spans at most ${ANALYTICS_RANGE_DAYS_MAX} days.`);
  }
  return { start, end };
}

/** The UTC days from `start` to `end`, as `YYYY-MM-DD`. */
export function days(start: Date, end: Date): string[] {
  const out: string[] = [];
  for (let t = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate()); t < end.getTime(); t += DAY_MS) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}
