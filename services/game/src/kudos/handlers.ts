import { GAME } from '@helpdesk/contracts';
import { handlersFor, pageOf, skipOf } from '@helpdesk/kit';
import type { GameRules } from '../rules';

export const kudosHandlers = ({ members, kudos }: GameRules) =>
  handlersFor(GAME)({
    async giveKudos({ ctx, body }) {
      await members.requireFeature(ctx.teamId, 'socialEnabled');
      const from = await members.actor(ctx, body.userId);
      const to = await members.resolve(ctx.teamId, body.toMemberId, 'toMemberId');
      return kudos.give(ctx, from, to, body.message ?? null);
    },
    async listKudos({ ctx, query }) {
      await members.requireFeature(ctx.teamId, 'socialEnabled');
      const member = query.userId ? await members.resolve(ctx.teamId, query.userId, 'userId') : null;
      const { data, total } = await kudos.list(ctx, member?._id, skipOf(query.page, query.pageSize), query.pageSize);
      return { data, pagination: pageOf(query.page, query.pageSize, total) };
    },
    async listPlayerKudos({ ctx, params, query }) {
      await members.requireFeature(ctx.teamId, 'socialEnabled');
      const member = await members.resolve(ctx.teamId, params.memberId, 'memberId');
      const { data, total } = await kudos.list(ctx, member._id, skipOf(query.page, query.pageSize), query.pageSize, true);
      return { data, pagination: pageOf(query.page, query.pageSize, total) };
    },
  });
