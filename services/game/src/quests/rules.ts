import type mongoose from 'mongoose';
import { ApiError, eventScopeOf, scoped, withOutbox, type RequestContext, type Scope } from '@helpdesk/kit';
import type { Clock } from '@helpdesk/kit';
import type { GameModels } from '../collections';
import type { PlayerRules } from '../player/rules';
import { dayEnd, dayIdOf, weekEnd, weekIdOf } from '../seasons/calendar';
import { QUESTS, type QuestDef } from './catalog';

/** Daily and weekly quests: progress is what the ledger holds for the member in the period; claiming pays once per period. */
export function questRules({ conn, models, players, clock }: { conn: mongoose.Connection; models: GameModels; players: PlayerRules; clock: Clock }) {
  const db = (scope: Scope) => scoped(models, scope);
  async function view(scope: Scope, memberId: string, q: QuestDef, session?: mongoose.ClientSession) {
    const now = clock.now();
    const daily = q.cadence === 'daily';
    const periodId = daily ? dayIdOf(now) : weekIdOf(now);
    // One after the other: operations of one transaction's session never run at once.
    const count = await db(scope).ledger.countDocuments({ memberId, kind: q.counts, [daily ? 'dayId' : 'weekId']: periodId }).session(session ?? null);
    const claimed = await db(scope).questClaims.exists({ memberId, quest: q.key, periodId }).session(session ?? null);
    return {
      key: q.key,
      name: q.name,
      cadence: q.cadence,
      periodId,
      target: q.target,
      progress: Math.min(count, q.target),
      completed: count >= q.target,
      claimed: !!claimed,
      rewards: { ...q.rewards },
      endsAt: (daily ? dayEnd(now) : weekEnd(now)).toISOString(),
    };
  }
  return {
    async list(scope: Scope, memberId: string) {
      return Promise.all(QUESTS.map((q) => view(scope, memberId, q)));
    },
    async claim(ctx: RequestContext, memberId: string, key: string) {
      const q = QUESTS.find((x) => x.key === key);
      if (!q) throw new ApiError('resource_not_found', `No quest '${key}'.`, 'questKey');
      try {
        return await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
          const v = await view(ctx, memberId, q, session);
          if (v.claimed) throw new ApiError('already_done', 'This quest is claimed already for this period.', 'questKey');
          if (!v.completed) throw new ApiError('game_rule_violation', `The quest is not done yet (${v.progress}/${v.target}).`, 'questKey');
          await db(ctx).questClaims.create([{ memberId, quest: q.key, periodId: v.periodId, claimedAt: clock.now() }], { session });
          await players.award(ctx, memberId, { reason: 'quest_reward', xp: q.rewards.xp, gold: q.rewards.gold, stats: { questsCompleted: 1 } }, session, emit);
          emit({ type: 'game.quest.claimed', data: { memberId, quest: q.key, periodId: v.periodId, xp: q.rewards.xp, gold: q.rewards.gold } });
          return { ...v, claimed: true };
        });
      } catch (err) {
        if ((err as { code?: number }).code === 11000) throw new ApiError('already_done', 'This quest is claimed already for this period.', 'questKey');
        throw err;
      }
    },
  };
}
export type QuestRules = ReturnType<typeof questRules>;
