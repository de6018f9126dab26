import { GAME, type Partition } from '@helpdesk/contracts';
import { ApiError, handlersFor, pageOf, skipOf } from '@helpdesk/kit';
import { ACHIEVEMENTS } from '../achievements/catalog';
import type { GameRules } from '../rules';
import { achievementView, playerView } from './view';

export const playerHandlers = ({ members, players, actions, records, clock }: GameRules) => {
  const show = async (ctx: { teamId: string; mode: Partition }, ref: string, param: string) => {
    const member = await members.resolve(ctx.teamId, ref, param);
    return playerView(member, await players.find(ctx, member._id), clock.now());
  };
  /** When `userId`'s member unlocked each achievement (none named, or in boring mode: nothing shown). */
  const unlockedAt = async (ctx: { teamId: string; mode: Partition }, userId: string | undefined) => {
    const member = userId ? await members.resolve(ctx.teamId, userId, 'userId') : null;
    const p = member && !member.boringMode ? await players.find(ctx, member._id) : null;
    return new Map((p?.achievements ?? []).map((a) => [a.key, new Date(a.unlockedAt).toISOString()]));
  };
  return handlersFor(GAME)({
    // `userId` defaults to the key's own member (400 naming userId when the key has none).
    async getGamePlayer({ ctx, query }) {
      const member = await members.actor(ctx, query.userId);
      return playerView(member, await players.find(ctx, member._id), clock.now());
    },
    getGamePlayerById: ({ ctx, params }) => show(ctx, params.memberId, 'memberId'),
    async prestige({ ctx, body }) {
      await members.requireFeature(ctx.teamId, 'seasonsEnabled');
      return actions.prestige(ctx, await members.actor(ctx, body.userId));
    },
    async listAchievements({ ctx, query }) {
      await members.requireFeature(ctx.teamId, 'achievementsEnabled');
      const at = await unlockedAt(ctx, query.userId);
      return ACHIEVEMENTS.map((a) => achievementView(a, at));
    },
    async getAchievement({ ctx, params, query }) {
      await members.requireFeature(ctx.teamId, 'achievementsEnabled');
      const a = ACHIEVEMENTS.find((x) => x.key === params.achievementKey);
      if (!a) throw new ApiError('resource_not_found', `No achievement '${params.achievementKey}'.`, 'achievementKey');
      return achievementView(a, await unlockedAt(ctx, query.userId));
    },
    async listPlayerXpHistory({ ctx, params, query }) {
      const member = await members.resolve(ctx.teamId, params.memberId, 'memberId');
      // Boring mode hides XP: the ledger reads empty (still written, shown again when it is switched off).
      if (member.boringMode) return { data: [], pagination: pageOf(query.page, query.pageSize, 0) };
      const { data, total } = await records.xpHistory(ctx, member._id, skipOf(query.page, query.pageSize), query.pageSize);
      return { data, pagination: pageOf(query.page, query.pageSize, total) };
    },
    async getPlayerActivity({ ctx, params }) {
      const member = await members.resolve(ctx.teamId, params.memberId, 'memberId');
      return records.activity(ctx, member, await players.find(ctx, member._id));
    },
    async listPlayerAchievements({ ctx, params }) {
      await members.requireFeature(ctx.teamId, 'achievementsEnabled');
      const member = await members.resolve(ctx.teamId, params.memberId, 'memberId');
      // Boring mode hides achievements (they are still unlocked, and show again when it is switched off).
      const p = member.boringMode ? null : await players.find(ctx, member._id);
      return (p?.achievements ?? []).map((u) => {
        const a = ACHIEVEMENTS.find((x) => x.key === u.key)!;
        return achievementView(a, new Map([[a.key, new Date(u.unlockedAt).toISOString()]]));
      });
    },
  });
};
