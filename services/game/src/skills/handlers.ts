import { GAME, SKILL_KEYS, SKILL_MAX_LEVEL, type SkillKey } from '@helpdesk/contracts';
import { ApiError, handlersFor } from '@helpdesk/kit';
import { SKILLS } from '../player/progression';
import type { GameRules } from '../rules';

const skillDef = (key: SkillKey) => ({ key, name: SKILLS[key].name, maxLevel: SKILL_MAX_LEVEL as typeof SKILL_MAX_LEVEL, effectPerLevel: SKILLS[key].effectPerLevel, costPerLevel: 1 });

/** The skill tree: its definition, spending a point, resetting. */
export const skillHandlers = ({ members, actions }: GameRules) =>
  handlersFor(GAME)({
    async listSkills({ ctx }) {
      await members.requireFeature(ctx.teamId, 'skillTreesEnabled');
      return SKILL_KEYS.map(skillDef);
    },
    async getSkill({ ctx, params }) {
      await members.requireFeature(ctx.teamId, 'skillTreesEnabled');
      const key = SKILL_KEYS.find((k) => k === params.skillKey);
      if (!key) throw new ApiError('resource_not_found', `No skill '${params.skillKey}'.`, 'skillKey');
      return skillDef(key);
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
