import type mongoose from 'mongoose';
import { SKILL_KEYS, SKILL_MAX_LEVEL, type SkillKey } from '@helpdesk/contracts';
import { ApiError, eventScopeOf, scoped, withOutbox, type Emit, type RequestContext } from '@helpdesk/kit';
import type { Clock } from '@helpdesk/kit';
import { cosmeticByKey } from '../cosmetics/catalog';
import type { GameMemberDoc } from '../members/model';
import type { GameModels } from '../collections';
import type { PlayerDoc } from './model';
import { LEVEL_CAP, levelOf, PRESTIGE_MAX, prestigeBonusOf, SKILL_RESET_GOLD } from './progression';
import type { PlayerRules } from './rules';
import { playerView } from './view';

/**
 * What a member spends and chooses: skill points, gold on cosmetics, prestige. Each is one
 * conditional update (the condition is the rule: enough gold, a point left, below the max), so two
 * requests at once never spend the same gold twice.
 */
export function playerActionRules({ conn, models, players, clock }: { conn: mongoose.Connection; models: GameModels; players: PlayerRules; clock: Clock }) {
  const run = async (ctx: RequestContext, member: GameMemberDoc, change: (p: PlayerDoc, session: mongoose.ClientSession, emit: Emit) => Promise<void>) => {
    await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
      const p = await players.load(ctx, member._id, session, emit);
      await change(p, session, emit);
    });
    return playerView(member, await players.find(ctx, member._id), clock.now());
  };
  const Players = (ctx: RequestContext) => scoped(models, ctx).players;

  return {
    async upgradeSkill(ctx: RequestContext, member: GameMemberDoc, key: string) {
      if (!(SKILL_KEYS as readonly string[]).includes(key)) throw new ApiError('resource_not_found', `No skill '${key}'.`, 'skillKey');
      const skill = key as SkillKey;
      return run(ctx, member, async (p, session, emit) => {
        if (p.skills[skill] >= SKILL_MAX_LEVEL) throw new ApiError('game_rule_violation', `${skill} is at its maximum level (${SKILL_MAX_LEVEL}).`, 'skillKey');
        if (p.skillPointsAvailable < 1) throw new ApiError('insufficient_skill_points', 'No skill point left: one comes with each level-up.');
        const res = await Players(ctx).updateOne(
          { memberId: member._id, skillPointsAvailable: { $gte: 1 }, [`skills.${skill}`]: { $lt: SKILL_MAX_LEVEL } },
          { $inc: { skillPointsAvailable: -1, [`skills.${skill}`]: 1 } },
          { session },
        );
        if (!res.modifiedCount) throw new ApiError('insufficient_skill_points', 'No skill point left: one comes with each level-up.');
        emit({ type: 'game.skill.upgraded', data: { memberId: member._id, skill, level: p.skills[skill] + 1 } });
      });
    },

    async resetSkills(ctx: RequestContext, member: GameMemberDoc) {
      return run(ctx, member, async (p, session, emit) => {
        const spent = p.skillPointsEarned - p.skillPointsAvailable;
        if (spent <= 0) throw new ApiError('game_rule_violation', 'No skill point is spent: nothing to reset.');
        if (p.gold < SKILL_RESET_GOLD) throw new ApiError('insufficient_gold', `A reset costs ${SKILL_RESET_GOLD} gold; you have ${p.gold}.`);
        const res = await Players(ctx).updateOne(
          { memberId: member._id, gold: { $gte: SKILL_RESET_GOLD } },
          { $set: { skills: Object.fromEntries(SKILL_KEYS.map((k) => [k, 0])), skillPointsAvailable: p.skillPointsEarned }, $inc: { gold: -SKILL_RESET_GOLD } },
          { session },
        );
        if (!res.modifiedCount) throw new ApiError('insufficient_gold', `A reset costs ${SKILL_RESET_GOLD} gold.`);
        emit({ type: 'game.skills.reset', data: { memberId: member._id, refundedPoints: spent, goldSpent: SKILL_RESET_GOLD } });
      });
    },

    async purchaseCosmetic(ctx: RequestContext, member: GameMemberDoc, key: string) {
      const item = cosmeticByKey(key);
      if (!item) throw new ApiError('resource_not_found', `No cosmetic '${key}'.`, 'cosmeticKey');
      return run(ctx, member, async (p, session, emit) => {
        if (p.cosmetics.owned.includes(key)) throw new ApiError('already_done', `You own '${key}' already.`, 'cosmeticKey');
        if (p.gold < item.price) throw new ApiError('insufficient_gold', `'${key}' costs ${item.price} gold; you have ${p.gold}.`);
        const res = await Players(ctx).updateOne(
          { memberId: member._id, gold: { $gte: item.price }, 'cosmetics.owned': { $ne: key } },
          { $inc: { gold: -item.price }, $push: { 'cosmetics.owned': key } },
          { session },
        );
        if (!res.modifiedCount) throw new ApiError('insufficient_gold', `'${key}' costs ${item.price} gold.`);
        emit({ type: 'game.cosmetic.purchased', data: { memberId: member._id, cosmetic: key, price: item.price } });
      });
    },

    async equip(ctx: RequestContext, member: GameMemberDoc, choice: { avatarFrame?: string | null; victoryMessage?: string | null }) {
      return run(ctx, member, async (p, session, emit) => {
        const set: Record<string, string | null> = {};
        for (const [field, kind] of [['avatarFrame', 'avatar_frame'], ['victoryMessage', 'victory_message']] as const) {
          const key = choice[field];
          if (key === undefined) continue;
          if (key !== null && (cosmeticByKey(key)?.kind !== kind || !p.cosmetics.owned.includes(key))) {
            throw new ApiError('game_rule_violation', `'${key}' is not a ${kind.replace('_', ' ')} you own.`, field);
          }
          set[`cosmetics.${field}`] = key;
        }
        if (Object.keys(set).length) await Players(ctx).updateOne({ memberId: member._id }, { $set: set }, { session });
        const after = { avatarFrame: p.cosmetics.avatarFrame, victoryMessage: p.cosmetics.victoryMessage, ...choice };
        emit({ type: 'game.cosmetic.equipped', data: { memberId: member._id, avatarFrame: after.avatarFrame ?? null, victoryMessage: after.victoryMessage ?? null } });
      });
    },

    async prestige(ctx: RequestContext, member: GameMemberDoc) {
      return run(ctx, member, async (p, session, emit) => {
        if (levelOf(p.seasonXp) < LEVEL_CAP) throw new ApiError('game_rule_violation', `Prestige needs level ${LEVEL_CAP}; you are level ${levelOf(p.seasonXp)}.`);
        if (p.prestigeLevel >= PRESTIGE_MAX) throw new ApiError('game_rule_violation', `Prestige ${PRESTIGE_MAX} is the highest.`);
        const res = await Players(ctx).updateOne({ memberId: member._id, prestigeLevel: p.prestigeLevel, seasonXp: p.seasonXp }, { $set: { seasonXp: 0 }, $inc: { prestigeLevel: 1 } }, { session });
        if (!res.modifiedCount) throw new ApiError('game_rule_violation', 'Your player changed meanwhile: try again.');
        const level = p.prestigeLevel + 1;
        emit({ type: 'game.prestiged', data: { memberId: member._id, prestigeLevel: level, prestigeBonus: prestigeBonusOf(level) } });
        emit({ type: 'game.player.progressed', data: { memberId: member._id, seasonId: p.seasonId, level: 1, xp: 0 } });
      });
    },
  };
}
export type PlayerActionRules = ReturnType<typeof playerActionRules>;
