import { GAME } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { GameRules } from '../rules';

export const questHandlers = ({ members, quests }: GameRules) =>
  handlersFor(GAME)({
    async listQuests({ ctx, query }) {
      await members.requireFeature(ctx.teamId, 'questsEnabled');
      return quests.list(ctx, (await members.actor(ctx, query.userId))._id);
    },
    async listPlayerQuests({ ctx, params }) {
      await members.requireFeature(ctx.teamId, 'questsEnabled');
      return quests.list(ctx, (await members.resolve(ctx.teamId, params.memberId, 'memberId'))._id);
    },
    async claimQuest({ ctx, params, body }) {
      await members.requireFeature(ctx.teamId, 'questsEnabled');
      return quests.claim(ctx, (await members.actor(ctx, body.userId))._id, params.questKey);
    },
  });
