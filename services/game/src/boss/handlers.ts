import { GAME } from '@helpdesk/contracts';
import { handlersFor, pageOf, skipOf } from '@helpdesk/kit';
import type { GameRules } from '../rules';

/** Every boss operation first checks the team's `bossBattlesEnabled`. */
export const bossHandlers = ({ members, bosses }: GameRules) => {
  const enabled = (teamId: string) => members.requireFeature(teamId, 'bossBattlesEnabled');
  return handlersFor(GAME)({
    async getBoss({ ctx }) {
      await enabled(ctx.teamId);
      return bosses.state(ctx);
    },
    async getBossActive({ ctx }) {
      await enabled(ctx.teamId);
      return bosses.isActive(ctx);
    },
    async spawnBoss({ ctx }) {
      await enabled(ctx.teamId);
      return bosses.spawn(ctx);
    },
    async damageBoss({ ctx, body }) {
      await enabled(ctx.teamId);
      const member = await members.actor(ctx, body.userId);
      return bosses.damage(ctx, member, body.ticketId, body.userName);
    },
    async listBossParticipants({ ctx }) {
      await enabled(ctx.teamId);
      const { active, boss } = await bosses.state(ctx);
      if (!active || !boss) return [];
      return [...boss.participants].sort((a, b) => b.damage - a.damage || a.lastHitAt.localeCompare(b.lastHitAt));
    },
    async listBossHistory({ ctx, query }) {
      await enabled(ctx.teamId);
      const { data, total } = await bosses.history(ctx, skipOf(query.page, query.pageSize), query.pageSize);
      return { data, pagination: pageOf(query.page, query.pageSize, total) };
    },
  });
};
