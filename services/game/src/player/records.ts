import type { XpReason } from '@helpdesk/contracts';
import { scoped, type Scope } from '@helpdesk/kit';
import type { Clock } from '@helpdesk/kit';
import type { GameMemberDoc } from '../members/model';
import type { GameModels } from '../collections';
import { puzzleOf } from '../puzzles/daily';
import { dayIdOf } from '../seasons/calendar';
import type { LedgerDoc, PlayerDoc } from './model';
import { playerView } from './view';

/** Read-only figures of a member's past: the payment ledger and the lifetime activity counts. */
export function playerRecordRules({ models, clock }: { models: GameModels; clock: Clock }) {
  const db = (scope: Scope) => scoped(models, scope);
  return {
    /** Payments only (deed rows such as `boss_hit` pay nothing), newest first. */
    async xpHistory(scope: Scope, memberId: string, skip: number, limit: number) {
      const filter = { memberId, $or: [{ xp: { $gt: 0 } }, { gold: { $gt: 0 } }] };
      const [rows, total] = await Promise.all([
        db(scope).ledger.find(filter).sort({ at: -1, _id: -1 }).skip(skip).limit(limit).lean<LedgerDoc[]>(),
        db(scope).ledger.countDocuments(filter),
      ]);
      const data = rows.map((r) => ({ reason: r.kind as XpReason, xp: r.xp, gold: r.gold, seasonId: r.seasonId, at: r.at.toISOString() }));
      return { data, total };
    },
    async activity(scope: Scope, member: GameMemberDoc, p: PlayerDoc | null) {
      const now = clock.now();
      const d = db(scope);
      const [answered, answeredToday, received] = await Promise.all([
        d.puzzleAnswers.countDocuments({ memberId: member._id }),
        d.puzzleAnswers.exists({ memberId: member._id, puzzleId: puzzleOf(dayIdOf(now)).id }),
        d.kudos.countDocuments({ toMemberId: member._id }),
      ]);
      const { streaks } = playerView(member, p, now);
      return {
        object: 'player_activity' as const,
        memberId: member._id,
        streaks: { ...streaks, lastActiveDay: p?.streak.lastDayId ?? null },
        puzzles: { answered, solved: p?.stats.puzzlesSolved ?? 0, answeredToday: !!answeredToday },
        kudos: { given: p?.stats.kudosGiven ?? 0, received },
      };
    },
  };
}
export type PlayerRecordRules = ReturnType<typeof playerRecordRules>;
