import { z } from 'zod';
import type { CatalogEntry } from './read';

/**
 * The game service's events (type → {version, data schema}), spread into EVENT_CATALOG in ../events.ts,
 * and the game objects they carry. The rules behind the numbers are in services/game/README.md and
 * docs/adr/0032; each partition plays its own game (docs/adr/0033), so `mode` on these events is
 * the partition the change happened in.
 */
export const SKILL_KEYS = ['swift_resolver', 'gold_digger', 'boss_slayer', 'shield_breaker'] as const;
export type SkillKey = (typeof SKILL_KEYS)[number];
export const SKILL_MAX_LEVEL = 5;

export const BOSS_DIFFICULTIES = ['easy', 'medium', 'hard'] as const;
export type BossDifficulty = (typeof BOSS_DIFFICULTIES)[number];

export const LEADERBOARD_METRICS = ['xp', 'tickets_closed', 'boss_damage'] as const;
export const LEADERBOARD_PERIODS = ['season', 'week'] as const;

/** Why XP or gold was paid. */
export const XP_REASONS = ['ticket_closed', 'boss_reward', 'quest_reward', 'achievement', 'puzzle', 'kudos'] as const;
export type XpReason = (typeof XP_REASONS)[number];

const bossRewardSchema = z.object({ memberId: z.string(), damage: z.number().int(), xp: z.number().int(), gold: z.number().int(), finalBlow: z.boolean() });

export const bossSummarySchema = z.object({
  id: z.string(),
  name: z.string(),
  level: z.number().int(),
  difficulty: z.enum(BOSS_DIFFICULTIES),
  maxHealth: z.number().int(),
});

export const GAME_EVENTS = {
  /** A member earned XP and gold (a ticket, a boss's rewards, a quest, an achievement, a puzzle, kudos). */
  'game.xp_awarded': {
    version: 1, read: { op: 'listPlayerXpHistory' },
    data: z.object({
      memberId: z.string(),
      reason: z.enum(XP_REASONS),
      xp: z.number().int(),
      gold: z.number().int(),
      /** The ticket that paid (`ticket_closed`), else null. */
      ticketId: z.string().nullable(),
      /** How the ticket's XP was made up: the base by priority and each bonus, as fractions. */
      breakdown: z.record(z.string(), z.number()),
      seasonId: z.string(),
      level: z.number().int(),
      /** The member's season XP after the award. */
      seasonXp: z.number().int(),
    }),
  },
  'game.level_up': { version: 1, read: { op: 'getGamePlayerById' }, data: z.object({ memberId: z.string(), seasonId: z.string(), previousLevel: z.number().int(), level: z.number().int() }) },
  /** The member's season level and XP after any change (the workspace service's member objects follow it). */
  'game.player.progressed': { version: 1, read: { op: 'getGamePlayerById' }, data: z.object({ memberId: z.string(), seasonId: z.string(), level: z.number().int(), xp: z.number().int() }) },
  'game.prestiged': { version: 1, read: { op: 'getGamePlayerById' }, data: z.object({ memberId: z.string(), prestigeLevel: z.number().int(), prestigeBonus: z.number() }) },
  'game.skill.upgraded': { version: 1, read: { op: 'getSkill' }, data: z.object({ memberId: z.string(), skill: z.enum(SKILL_KEYS), level: z.number().int() }) },
  'game.skills.reset': { version: 1, read: { op: 'listSkills' }, data: z.object({ memberId: z.string(), refundedPoints: z.number().int(), goldSpent: z.number().int() }) },
  'game.boss.spawned': { version: 1, read: { op: 'getBoss' }, data: z.object({ boss: bossSummarySchema, ticketCount: z.number().int() }) },
  'game.boss.damaged': {
    version: 1, read: { op: 'getBoss' },
    data: z.object({
      bossId: z.string(),
      memberId: z.string(),
      ticketId: z.string(),
      damage: z.number().int(),
      currentHealth: z.number().int(),
      shieldBlocked: z.boolean(),
      shieldBroken: z.boolean(),
      enrageTriggered: z.boolean(),
      isKillingBlow: z.boolean(),
    }),
  },
  'game.boss.defeated': {
    version: 1, read: { op: 'listBossHistory' },
    data: z.object({ boss: bossSummarySchema, killedBy: z.string(), battleDuration: z.number().int(), rewards: z.array(bossRewardSchema) }),
  },
  /** Nobody finished it in time: it leaves without rewards. */
  'game.boss.escaped': { version: 1, read: { op: 'listBossHistory' }, data: z.object({ boss: bossSummarySchema, currentHealth: z.number().int(), battleDuration: z.number().int() }) },
  'game.achievement.unlocked': {
    version: 1, read: { op: 'listPlayerAchievements' },
    data: z.object({ memberId: z.string(), achievement: z.string(), name: z.string(), gold: z.number().int() }),
  },
  /** A quest's target was reached in its period (claiming pays it). */
  'game.quest.completed': { version: 1, read: { op: 'listPlayerQuests' }, data: z.object({ memberId: z.string(), quest: z.string(), periodId: z.string() }) },
  'game.quest.claimed': { version: 1, read: { op: 'listPlayerQuests' }, data: z.object({ memberId: z.string(), quest: z.string(), periodId: z.string(), xp: z.number().int(), gold: z.number().int() }) },
  'game.puzzle.answered': { version: 1, read: { op: 'getDailyPuzzle' }, data: z.object({ memberId: z.string(), puzzleId: z.string(), correct: z.boolean() }) },
  'game.kudos.given': { version: 1, read: { op: 'listKudos' }, data: z.object({ kudosId: z.string(), fromMemberId: z.string(), toMemberId: z.string(), message: z.string().nullable() }) },
  'game.cosmetic.purchased': { version: 1, read: { op: 'getPlayerInventory' }, data: z.object({ memberId: z.string(), cosmetic: z.string(), price: z.number().int() }) },
  'game.cosmetic.equipped': { version: 1, read: { op: 'getPlayerInventory' }, data: z.object({ memberId: z.string(), avatarFrame: z.string().nullable(), victoryMessage: z.string().nullable() }) },
  'game.season.rolled_over': { version: 1, read: { op: 'listSeasons' }, data: z.object({ memberId: z.string(), fromSeasonId: z.string(), toSeasonId: z.string(), finalLevel: z.number().int(), finalXp: z.number().int() }) },
} as const satisfies Record<string, CatalogEntry>;
