import { GAME } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { GameRules } from '../rules';

export const puzzleHandlers = ({ members, puzzles }: GameRules) =>
  handlersFor(GAME)({
    async getDailyPuzzle({ ctx, query }) {
      await members.requireFeature(ctx.teamId, 'puzzlesEnabled');
      const member = query.userId ? await members.resolve(ctx.teamId, query.userId, 'userId') : null;
      return puzzles.daily(ctx, member?._id);
    },
    async answerDailyPuzzle({ ctx, body }) {
      await members.requireFeature(ctx.teamId, 'puzzlesEnabled');
      return puzzles.answer(ctx, (await members.actor(ctx, body.userId))._id, body.answer);
    },
  });
