import { GAME, SKILL_KEYS, SKILL_MAX_LEVEL } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import { SKILLS } from '../player/progression';
import type { GameRules } from '../rules';
import { previousSeason, seasonById, seasonOf } from '../seasons/calendar';
import { COSMETICS } from './catalog';

/** The shop, the skill tree and the seasons: catalogs, and what a member spends on them. */
export const shopHandlers = ({ members, players, actions, clock }: GameRules) =>
  handlersFor(GAME)({
    async listCosmetics({ ctx }) {
      await members.requireFeature(ctx.teamId, 'cosmeticsEnabled');
      return COSMETICS.map((c) => ({ ...c }));
    },
    async purchaseCosmetic({ ctx, params, body }) {
      await members.requireFeature(ctx.teamId, 'cosmeticsEnabled');
      return actions.purchaseCosmetic(ctx, await members.actor(ctx, body.userId), params.cosmeticKey);
    },
    async equipCosmetics({ ctx, body }) {
      await members.requireFeature(ctx.teamId, 'cosmeticsEnabled');
      const { userId, ...choice } = body;
      return actions.equip(ctx, await members.actor(ctx, userId), choice);
    },
    async listSkills({ ctx }) {
      await members.requireFeature(ctx.teamId, 'skillTreesEnabled');
      return SKILL_KEYS.map((key) => ({ key, name: SKILLS[key].name, maxLevel: SKILL_MAX_LEVEL, effectPerLevel: SKILLS[key].effectPerLevel, costPerLevel: 1 }));
    },
    async upgradeSkill({ ctx, params, body }) {
      await members.requireFeature(ctx.teamId, 'skillTreesEnabled');
      return actions.upgradeSkill(ctx, await members.actor(ctx, body.userId), params.skillKey);
    },
    async resetSkills({ ctx, body }) {
      await members.requireFeature(ctx.teamId, 'skillTreesEnabled');
      return actions.resetSkills(ctx, await members.actor(ctx, body.userId));
    },
    async getCurrentSeason({ ctx }) {
      await members.requireFeature(ctx.teamId, 'seasonsEnabled');
      const s = seasonOf(clock());
      return { id: s.id, name: s.name, startsAt: s.startsAt.toISOString(), endsAt: s.endsAt.toISOString() };
    },
    async listSeasons({ ctx, query }) {
      await members.requireFeature(ctx.teamId, 'seasonsEnabled');
      const member = query.userId ? await members.resolve(ctx.teamId, query.userId, 'userId') : null;
      const p = member ? await players.find(ctx, member._id) : null;
      const played = new Map((p?.pastSeasons ?? []).map((s) => [s.seasonId, s]));
      // Every season the member played, and the four before the current one.
      const ids = new Set(played.keys());
      for (let s = previousSeason(seasonOf(clock())), i = 0; i < 4; s = previousSeason(s), i++) ids.add(s.id);
      return [...ids].sort().reverse().map((id) => {
        const s = seasonById(id);
        const mine = played.get(id);
        const hidden = !member || member.boringMode;
        return { id, name: s.name, startsAt: s.startsAt.toISOString(), endsAt: s.endsAt.toISOString(), finalLevel: hidden ? null : (mine?.level ?? null), finalXp: hidden ? null : (mine?.xp ?? null) };
      });
    },
  });
