import { GAME } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import { ACHIEVEMENTS } from '../achievements/catalog';
import type { GameRules } from '../rules';
import { playerView } from './view';

export const playerHandlers = ({ members, players, actions, clock }: GameRules) => {
  const show = async (ctx: { teamId: string; mode: 'test' | 'live' }, ref: string, param: string) => {
    const member = await members.resolve(ctx.teamId, ref, param);
    return playerView(member, await players.find(ctx, member._id), clock());
  };
  return handlersFor(GAME)({
    getGamePlayer: ({ ctx, query }) => show(ctx, query.userId, 'userId'),
    getGamePlayerById: ({ ctx, params }) => show(ctx, params.memberId, 'memberId'),
    async prestige({ ctx, body }) {
      await members.requireFeature(ctx.teamId, 'seasonsEnabled');
      return actions.prestige(ctx, await members.actor(ctx, body.userId));
    },
    async listAchievements({ ctx, query }) {
      await members.requireFeature(ctx.teamId, 'achievementsEnabled');
      const member = query.userId ? await members.resolve(ctx.teamId, query.userId, 'userId') : null;
      const p = member && !member.boringMode ? await players.find(ctx, member._id) : null;
      const at = new Map((p?.achievements ?? []).map((a) => [a.key, new Date(a.unlockedAt).toISOString()]));
      return ACHIEVEMENTS.map((a) => ({ key: a.key, name: a.name, description: a.description, gold: a.gold, unlockedAt: at.get(a.key) ?? null }));
    },
    async listPlayerAchievements({ ctx, params }) {
      await members.requireFeature(ctx.teamId, 'achievementsEnabled');
      const member = await members.resolve(ctx.teamId, params.memberId, 'memberId');
      // Boring mode hides achievements (they are still unlocked, and show again when it is switched off).
      const p = member.boringMode ? null : await players.find(ctx, member._id);
      return (p?.achievements ?? []).map((u) => {
        const a = ACHIEVEMENTS.find((x) => x.key === u.key)!;
        return { key: a.key, name: a.name, description: a.description, gold: a.gold, unlockedAt: new Date(u.unlockedAt).toISOString() };
      });
    },
  });
};
