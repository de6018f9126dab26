import { GAME } from '@helpdesk/contracts';
import { handlersFor, pageOf, skipOf, type ServiceDeps } from '@helpdesk/kit';
import type { GameModels } from '../collections';
import type { GameRules } from '../rules';
import { giveKudos } from './give';
import { listKudos } from './list';

export const kudosHandlers = ({ members, players, clock }: GameRules, { conn, models }: ServiceDeps<GameModels>) =>
  handlersFor(GAME)({
    async giveKudos({ ctx, body }) {
      await members.requireFeature(ctx.teamId, 'socialEnabled');
      const from = await members.actor(ctx, body.userId);
      const to = await members.resolve(ctx.teamId, body.toMemberId, 'toMemberId');
      return giveKudos({ conn, models, players, clock }, ctx, { from, to, message: body.message ?? null });
    },
    async listKudos({ ctx, query }) {
      await members.requireFeature(ctx.teamId, 'socialEnabled');
      const member = query.userId ? await members.resolve(ctx.teamId, query.userId, 'userId') : null;
      const { data, total } = await listKudos({ models }, ctx, { memberId: member?._id, skip: skipOf(query.page, query.pageSize), limit: query.pageSize });
      return { data, pagination: pageOf(query.page, query.pageSize, total) };
    },
    async listPlayerKudos({ ctx, params, query }) {
      await members.requireFeature(ctx.teamId, 'socialEnabled');
      const member = await members.resolve(ctx.teamId, params.memberId, 'memberId');
      const { data, total } = await listKudos({ models }, ctx, { memberId: member._id, skip: skipOf(query.page, query.pageSize), limit: query.pageSize, receivedOnly: true });
      return { data, pagination: pageOf(query.page, query.pageSize, total) };
    },
  });
