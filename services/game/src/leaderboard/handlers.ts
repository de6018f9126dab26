import { GAME } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { GameRules } from '../rules';

export const leaderboardHandlers = ({ members, leaderboard }: GameRules) =>
  handlersFor(GAME)({
    async getLeaderboard({ ctx, query }) {
      await members.requireFeature(ctx.teamId, 'leaderboardsEnabled');
      return leaderboard.board(ctx, query.metric, query.period, query.limit, query.seasonId);
    },
  });
