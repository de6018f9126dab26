import { parameterInvalid, scoped, type Scope } from '@helpdesk/kit';
import type { Clock } from '@helpdesk/kit';
import type { GameMemberRules } from '../members/rules';
import type { GameModels } from '../collections';
import { seasonOf, weekIdOf } from '../seasons/calendar';

const FIELD = { xp: 'xp', tickets_closed: 'tickets', boss_damage: 'damage' } as const;

/** Leaderboards are running totals for the season or the ISO week; boring-mode and removed members are left out. */
export function leaderboardRules({ models, members, clock }: { models: GameModels; members: GameMemberRules; clock: Clock }) {
  return {
    /** `seasonId`: a past (or the current) season's standings instead of the current period's. */
    async board(scope: Scope, metric: keyof typeof FIELD, period: 'season' | 'week', limit: number, seasonId?: string) {
      const now = clock.now();
      if (seasonId !== undefined) {
        if (period !== 'season') throw parameterInvalid('seasonId', '`seasonId` reads a season: leave `period` out or set it to `season`.');
        if (seasonId > seasonOf(now).id) throw parameterInvalid('seasonId', `Season ${seasonId} has not begun yet.`);
      }
      const periodId = seasonId ?? (period === 'season' ? seasonOf(now).id : weekIdOf(now));
      const field = FIELD[metric];
      const entries: { rank: number; memberId: string; name: string; value: number }[] = [];
      // Running totals per period, one indexed sort, read a page at a time: members left out (boring
      // mode, removed) make the next page needed.
      const page = limit + 10;
      for (let skip = 0; entries.length < limit; skip += page) {
        const rows = await scoped(models, scope).standings.find({ periodId, [field]: { $gt: 0 } }).sort({ [field]: -1, memberId: 1 }).skip(skip).limit(page).lean();
        const shown = new Map((await members.byIds(scope.teamId, rows.map((r) => r.memberId))).filter((m) => !m.boringMode).map((m) => [m._id, m]));
        for (const r of rows) {
          const m = shown.get(r.memberId);
          if (!m || entries.length >= limit) continue;
          const value = r[field];
          const prev = entries[entries.length - 1];
          // Ties share a rank (1, 1, 3).
          const rank = prev && prev.value === value ? prev.rank : entries.length + 1;
          entries.push({ rank, memberId: r.memberId, name: m.name, value });
        }
        if (rows.length < page) break;
      }
      return { object: 'leaderboard' as const, metric, period, periodId, entries };
    },
  };
}
export type LeaderboardRules = ReturnType<typeof leaderboardRules>;
