import { scoped, type Scope } from '@helpdesk/kit';
import type { Clock } from '../clock';
import type { GameMemberRules } from '../members/rules';
import type { GameModels } from '../models';
import { seasonOf, weekIdOf } from '../seasons/calendar';

const FIELD = { xp: 'xp', tickets_closed: 'tickets', boss_damage: 'damage' } as const;

/** Leaderboards are running totals for the season or the ISO week; boring-mode and removed members are left out. */
export function leaderboardRules({ models, members, clock }: { models: GameModels; members: GameMemberRules; clock: Clock }) {
  return {
    async board(scope: Scope, metric: keyof typeof FIELD, period: 'season' | 'week', limit: number) {
      const now = clock();
      const periodId = period === 'season' ? seasonOf(now).id : weekIdOf(now);
      const field = FIELD[metric];
      // Running totals per period, one indexed sort; some spare rows for members left out (boring mode, removed).
      const sums = (
        await scoped(models, scope)
          .standings.find({ periodId, [field]: { $gt: 0 } })
          .sort({ [field]: -1, memberId: 1 })
          .limit(limit + 50)
          .lean()
      ).map((s) => ({ _id: s.memberId, value: s[field] }));
      const shown = new Map((await members.byIds(scope.teamId, sums.map((s) => s._id))).filter((m) => !m.boringMode).map((m) => [m._id, m]));
      const entries: { rank: number; memberId: string; name: string; value: number }[] = [];
      for (const s of sums) {
        const m = shown.get(s._id);
        if (!m) continue;
        const prev = entries[entries.length - 1];
        // Ties share a rank (1, 1, 3).
        const rank = prev && prev.value === s.value ? prev.rank : entries.length + 1;
        entries.push({ rank, memberId: s._id, name: m.name, value: s.value });
        if (entries.length >= limit) break;
      }
      return { object: 'leaderboard' as const, metric, period, periodId, entries };
    },
  };
}
export type LeaderboardRules = ReturnType<typeof leaderboardRules>;
