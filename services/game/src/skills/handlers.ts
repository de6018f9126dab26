import { GAME, SKILL_KEYS, SKILL_MAX_LEVEL } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import { SKILLS } from '../player/progression';
import type { GameRules } from '../rules';

/** The skill tree: its definition, spending a point, resetting. */
export const skillHandlers = ({ members, actions }: GameRules) =>
  handlersFor(GAME)({
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
  });
