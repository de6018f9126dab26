import { DateTime } from 'luxon';
import { WEEKDAYS } from '@helpdesk/contracts';

/** A team's opening hours as SLA clocks read them: a weekly schedule in one zone, closed on holidays. */
export interface WorkingCalendar {
  timezone: string;
  schedule: Record<(typeof WEEKDAYS)[number], { enabled: boolean; start: string; end: string }>;
  /** `YYYY-MM-DD` dates (in the team's zone) when the team is closed. */
  holidays: string[];
}

/** How far ahead a target is searched for: a calendar with open days always reaches it well before. */
const MAX_DAYS = 3 * 366;
const MINUTE = 60_000;

const hhmm = (s: string) => {
  const [h, m] = s.split(':').map(Number);
  return { hour: h ?? 0, minute: m ?? 0 };
};

/**
 * The calendar's open intervals from the day holding `from` on, in time order, as UTC millisecond
 * pairs. Each day's window is built in the team's zone, so a DST change moves it with local time.
 */
function* openWindows(cal: WorkingCalendar, from: Date): Generator<[number, number]> {
  const holidays = new Set(cal.holidays);
  let day = DateTime.fromJSDate(from, { zone: cal.timezone }).startOf('day');
  for (let i = 0; i < MAX_DAYS; i++, day = day.plus({ days: 1 })) {
    const slot = cal.schedule[WEEKDAYS[day.weekday - 1]!];
    if (!slot?.enabled || holidays.has(day.toISODate()!)) continue;
    const start = day.set(hhmm(slot.start)).toMillis();
    const end = day.set(hhmm(slot.end)).toMillis();
    if (end > start) yield [start, end];
  }
}

/** A calendar that never opens counts every hour (nothing could ever be due otherwise). */
const neverOpens = (cal: WorkingCalendar) => WEEKDAYS.every((d) => !cal.schedule[d]?.enabled);

/** The instant `minutes` of working time after `from` (every minute counts when `cal` is null: 24x7). */
export function addWorkingMinutes(from: Date, minutes: number, cal: WorkingCalendar | null): Date {
  if (!cal || neverOpens(cal)) return new Date(from.getTime() + minutes * MINUTE);
  let left = minutes * MINUTE;
  const t0 = from.getTime();
  let last = t0;
  for (const [start, end] of openWindows(cal, from)) {
    if (end <= t0) continue;
    const s = Math.max(start, t0);
    if (end - s >= left) return new Date(s + left);
    left -= end - s;
    last = end;
  }
  return new Date(last + left);
}

/** Working minutes between `from` and `to` (wall minutes when `cal` is null: 24x7). */
export function workingMinutesBetween(from: Date, to: Date, cal: WorkingCalendar | null): number {
  const t0 = from.getTime();
  const t1 = to.getTime();
  if (t1 <= t0) return 0;
  if (!cal || neverOpens(cal)) return (t1 - t0) / MINUTE;
  let sum = 0;
  for (const [start, end] of openWindows(cal, from)) {
    if (start >= t1) break;
    sum += Math.max(0, Math.min(end, t1) - Math.max(start, t0));
  }
  return sum / MINUTE;
}
