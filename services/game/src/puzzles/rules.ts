import type mongoose from 'mongoose';
import { ApiError, eventScopeOf, scoped, withOutbox, type RequestContext, type Scope } from '@helpdesk/kit';
import type { Clock } from '@helpdesk/kit';
import { PUZZLE_REWARDS, puzzleOf } from './daily';
import { puzzleView as view } from './view';
import type { GameModels } from '../collections';
import type { PlayerRules } from '../player/rules';
import { dayIdOf } from '../seasons/calendar';


export function puzzleRules({ conn, models, players, clock }: { conn: mongoose.Connection; models: GameModels; players: PlayerRules; clock: Clock }) {
  const today = () => puzzleOf(dayIdOf(clock.now()));
  return {
    async daily(scope: Scope, memberId: string | undefined) {
      const p = today();
      if (!memberId) return view(p, undefined);
      return view(p, await scoped(models, scope).puzzleAnswers.findOne({ memberId, puzzleId: p.id }).lean());
    },
    async answer(ctx: RequestContext, memberId: string, answer: string[]) {
      const p = today();
      const correct = answer.map((a) => a.toUpperCase()).join(',') === p.answer.join(',');
      try {
        await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
          const answers = scoped(models, ctx).puzzleAnswers;
          if (await answers.exists({ memberId, puzzleId: p.id }).session(session)) throw new ApiError('already_done', 'You answered today\'s puzzle already.');
          await answers.create([{ memberId, puzzleId: p.id, answer, correct, answeredAt: clock.now() }], { session });
          if (correct) await players.award(ctx, memberId, { reason: 'puzzle', ...PUZZLE_REWARDS, stats: { puzzlesSolved: 1 } }, session, emit);
          emit({ type: 'game.puzzle.answered', data: { memberId, puzzleId: p.id, correct } });
        });
      } catch (err) {
        if ((err as { code?: number }).code === 11000) throw new ApiError('already_done', 'You answered today\'s puzzle already.');
        throw err;
      }
      return view(p, { correct });
    },
  };
}
export type PuzzleRules = ReturnType<typeof puzzleRules>;
