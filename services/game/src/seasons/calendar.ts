/**
 * The game's calendar, all UTC: seasons are calendar quarters, quests and streaks count UTC days and
 * ISO weeks (Monday first). Ids are stable strings (`2026-Q4`, `2026-W48`, `2026-11-24`).
 */
const SEASON_NAMES = ['Frost', 'Bloom', 'Blaze', 'Harvest'] as const;
const DAY_MS = 86_400_000;

export interface Season {
  id: string;
  name: string;
  startsAt: Date;
  endsAt: Date;
}

export function seasonOf(now: Date): Season {
  const year = now.getUTCFullYear();
  const q = Math.floor(now.getUTCMonth() / 3);
  return seasonById(`${year}-Q${q + 1}`);
}

export function seasonById(id: string): Season {
  const [year, q] = [Number(id.slice(0, 4)), Number(id.slice(6)) - 1];
  return {
    id,
    name: `${SEASON_NAMES[q]} ${year}`,
    startsAt: new Date(Date.UTC(year, q * 3, 1)),
    endsAt: new Date(Date.UTC(year, q * 3 + 3, 1)),
  };
}

/** The season before `s`. */
export const previousSeason = (s: Season): Season => seasonOf(new Date(s.startsAt.getTime() - 1));

export const dayIdOf = (d: Date) => d.toISOString().slice(0, 10);
export const dayEnd = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1));
/** The day before a day id. */
export const previousDayId = (dayId: string) => dayIdOf(new Date(Date.parse(`${dayId}T00:00:00Z`) - DAY_MS));

/** ISO 8601 week id: the year of the week's Thursday, and its week number. */
export function weekIdOf(d: Date): string {
  const day = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  const weekday = day.getUTCDay() || 7;
  day.setUTCDate(day.getUTCDate() + 4 - weekday);
  const yearStart = Date.UTC(day.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((day.getTime() - yearStart) / DAY_MS + 1) / 7);
  return `${day.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}

/** When the ISO week of `d` ends (next Monday 00:00 UTC). */
export function weekEnd(d: Date): Date {
  const weekday = d.getUTCDay() || 7;
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 8 - weekday));
}
