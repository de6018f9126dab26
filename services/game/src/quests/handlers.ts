import { GAME } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { GameRules } from '../rules';

export const questHandlers = ({ members, quests, puzzles }: GameRules) =>
  handlersFor(GAME)({
    async listQuests({ ctx, query }) {
      await members.requireFeature(ctx.teamId, 'questsEnabled');
      return quests.list(ctx, (await members.actor(ctx, query.userId))._id);
    },
    async claimQuest({ ctx, params, body }) {
      await members.requireFeature(ctx.teamId, 'questsEnabled');
      return quests.claim(ctx, (await members.actor(ctx, body.userId))._id, params.questKey);
    },
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
