import { z } from 'zod';
import { BOSS_DIFFICULTIES, LEADERBOARD_METRICS, LEADERBOARD_PERIODS, SKILL_KEYS, SKILL_MAX_LEVEL, XP_REASONS } from '../../catalog/game';
import type { ErrorCode } from '../../errors';
import { paginationFields } from '../../fields';
import { defineOperations } from '../operation';
import { userIdField } from '../notifications/notifications';

/**
 * The game service's operations (docs/adr/0032 for the rules, 0033 for the test partition; the
 * numbers are in services/game/README.md). Every one needs a secret key and `game_participation`;
 * a feature the team switched off (feature flags) answers 403 `feature_disabled`. A member is named
 * by `userId` (account UUID or `mem_…` id); where it may be left out, it defaults to the key's member.
 */

const iso = z.string().datetime();
const season = z.object({ id: z.string(), name: z.string(), startsAt: iso, endsAt: iso }).meta({ id: 'GameSeason' });

export const playerStatsSchema = z
  .object({
    object: z.literal('player_stats'),
    memberId: z.string(),
    name: z.string(),
    avatarUrl: z.string().nullable(),
    /** true: the member chose boring mode; XP, level, bosses and achievements are hidden (null), and still accrue. */
    boringMode: z.boolean(),
    season,
    level: z.number().int().nullable(),
    xp: z.number().int().nullable(),
    xpToNextLevel: z.number().int().nullable(),
    xpInCurrentLevel: z.number().int().nullable(),
    xpProgress: z.number().min(0).max(1).nullable(),
    lifetimeXp: z.number().int().nullable(),
    gold: z.number().int(),
    prestigeLevel: z.number().int(),
    prestigeBonus: z.number(),
    streaks: z.object({ current: z.number().int(), max: z.number().int() }),
    stats: z.object({
      ticketsClosed: z.number().int(),
      bossesDefeated: z.number().int().nullable(),
      finalBlows: z.number().int().nullable(),
      achievementsUnlocked: z.number().int().nullable(),
      questsCompleted: z.number().int(),
    }),
    skills: z.object(
      Object.fromEntries(SKILL_KEYS.map((k) => [k, z.object({ level: z.number().int(), maxLevel: z.literal(SKILL_MAX_LEVEL), effect: z.string() })])) as Record<
        (typeof SKILL_KEYS)[number],
        z.ZodObject<{ level: z.ZodNumber; maxLevel: z.ZodLiteral<5>; effect: z.ZodString }>
      >,
    ),
    availableSkillPoints: z.number().int(),
    totalSkillPoints: z.number().int(),
    cosmetics: z.object({ avatarFrame: z.string().nullable(), victoryMessage: z.string().nullable(), owned: z.array(z.string()) }),
  })
  .meta({ id: 'PlayerStats' });

const participant = z.object({ memberId: z.string(), name: z.string(), damage: z.number().int(), hits: z.number().int(), lastHitAt: iso });
export const bossSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    level: z.number().int(),
    difficulty: z.enum(BOSS_DIFFICULTIES),
    status: z.enum(['active', 'defeated', 'escaped']),
    maxHealth: z.number().int(),
    currentHealth: z.number().int(),
    healthPercent: z.number().min(0).max(1),
    phase: z.number().int().min(1).max(3),
    abilities: z.object({
      shield: z.object({ active: z.boolean(), hitsRemaining: z.number().int() }),
      enrage: z.object({ active: z.boolean() }),
      heal: z.object({ totalHealed: z.number().int(), perMinute: z.number().int() }),
    }),
    rewards: z.object({ xpMultiplier: z.number(), goldMultiplier: z.number() }),
    participants: z.array(participant),
    totalDamage: z.number().int(),
    spawnedAt: iso,
    escapesAt: iso,
    endedAt: iso.nullable(),
    battleDuration: z.number().int(),
  })
  .meta({ id: 'Boss' });
export const bossStateSchema = z.object({ object: z.literal('boss_state'), active: z.boolean(), boss: bossSchema.nullable() }).meta({ id: 'BossState' });
export const bossDamageSchema = z
  .object({
    object: z.literal('boss_damage'),
    bossId: z.string(),
    ticketId: z.string(),
    memberId: z.string(),
    damage: z.number().int(),
    currentHealth: z.number().int(),
    healthPercent: z.number(),
    previousHealthPercent: z.number(),
    isDefeated: z.boolean(),
    isKillingBlow: z.boolean(),
    shieldBlocked: z.boolean(),
    shieldBroken: z.boolean(),
    enrageTriggered: z.boolean(),
    activeAbilities: z.array(z.string()),
  })
  .meta({ id: 'BossDamage' });

const achievementSchema = z
  .object({ key: z.string(), name: z.string(), description: z.string(), gold: z.number().int(), unlockedAt: iso.nullable() })
  .meta({ id: 'Achievement' });
const questSchema = z
  .object({
    key: z.string(),
    name: z.string(),
    cadence: z.enum(['daily', 'weekly']),
    periodId: z.string(),
    target: z.number().int(),
    progress: z.number().int(),
    completed: z.boolean(),
    claimed: z.boolean(),
    rewards: z.object({ xp: z.number().int(), gold: z.number().int() }),
    endsAt: iso,
  })
  .meta({ id: 'Quest' });
const leaderboardSchema = z
  .object({
    object: z.literal('leaderboard'),
    metric: z.enum(LEADERBOARD_METRICS),
    period: z.enum(LEADERBOARD_PERIODS),
    periodId: z.string(),
    entries: z.array(z.object({ rank: z.number().int(), memberId: z.string(), name: z.string(), value: z.number().int() })),
  })
  .meta({ id: 'Leaderboard' });
const puzzleSchema = z
  .object({
    id: z.string(),
    date: z.string(),
    prompt: z.string(),
    tickets: z.array(z.object({ key: z.string(), summary: z.string() })),
    rewards: z.object({ xp: z.number().int(), gold: z.number().int() }),
    answered: z.boolean().nullable(),
    correct: z.boolean().nullable(),
  })
  .meta({ id: 'Puzzle' });
const kudosSchema = z
  .object({ id: z.string(), fromMemberId: z.string(), toMemberId: z.string(), message: z.string().nullable(), createdAt: iso })
  .meta({ id: 'Kudos' });
const cosmeticSchema = z
  .object({ key: z.string(), kind: z.enum(['avatar_frame', 'victory_message']), name: z.string(), price: z.number().int(), text: z.string().nullable() })
  .meta({ id: 'Cosmetic' });
const skillDefSchema = z
  .object({ key: z.enum(SKILL_KEYS), name: z.string(), maxLevel: z.literal(SKILL_MAX_LEVEL), effectPerLevel: z.string(), costPerLevel: z.number().int() })
  .meta({ id: 'SkillDefinition' });
const seasonArchiveSchema = z
  .object({ id: z.string(), name: z.string(), startsAt: iso, endsAt: iso, finalLevel: z.number().int().nullable(), finalXp: z.number().int().nullable() })
  .meta({ id: 'PastSeason' });

const seasonIdField = z.string().regex(/^\d{4}-Q[1-4]$/, { message: 'must be a season id (2026-Q4)' });
const ledgerEntrySchema = z
  .object({ reason: z.enum(XP_REASONS), xp: z.number().int(), gold: z.number().int(), seasonId: z.string(), at: iso })
  .meta({ id: 'XpLedgerEntry' });
const inventorySchema = z
  .object({
    object: z.literal('inventory'),
    memberId: z.string(),
    gold: z.number().int(),
    equipped: z.object({ avatarFrame: z.string().nullable(), victoryMessage: z.string().nullable() }),
    items: z.array(cosmeticSchema),
  })
  .meta({ id: 'PlayerInventory' });
const activitySchema = z
  .object({
    object: z.literal('player_activity'),
    memberId: z.string(),
    streaks: z.object({ current: z.number().int(), max: z.number().int(), lastActiveDay: z.string().nullable() }),
    puzzles: z.object({ answered: z.number().int(), solved: z.number().int(), answeredToday: z.boolean() }),
    kudos: z.object({ given: z.number().int(), received: z.number().int() }),
  })
  .meta({ id: 'PlayerActivity' });
const summarySchema = z
  .object({
    object: z.literal('game_summary'),
    season: season.nullable(),
    boss: z.object({ id: z.string(), name: z.string(), difficulty: z.enum(BOSS_DIFFICULTIES), healthPercent: z.number(), phase: z.number().int(), escapesAt: iso }).nullable(),
    topPlayers: z.array(z.object({ rank: z.number().int(), memberId: z.string(), name: z.string(), value: z.number().int() })),
  })
  .meta({ id: 'GameSummary' });

const game = { service: 'game', tag: 'Game', keys: 'staff', permission: 'game_participation' } as const;
const team = { teamId: 'team' } as const;
const W = ['feature_disabled', 'parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found', 'idempotency_key_in_use'] as const satisfies readonly ErrorCode[];
const R = ['feature_disabled', 'parameter_missing', 'parameter_invalid', 'resource_not_found'] as const satisfies readonly ErrorCode[];
const USER = 'The member is named by `userId` (account UUID or `mem_…`); not a member of the team: 404 (param userId).';
const USER_DEFAULT =
  '`userId` defaults to the key\'s own member (`memberId` in `GET /auth/whoami`); a key that belongs to no member must name one ' +
  '(400 parameter_missing, param userId).';

const optionalUser = { userId: userIdField.optional() };
const actBody = z.strictObject(optionalUser);

export const GAME = defineOperations({
  getGamePlayer: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/player',
    summary: 'A member\'s player stats',
    description:
      `${USER} ${USER_DEFAULT} Level and XP are the current season's (they reset at each season's end); \`lifetimeXp\` and \`stats\` never reset. ` +
      'A member in boring mode gets `boringMode: true` and null XP, level, boss and achievement figures (they keep accruing).',
    params: team,
    query: z.strictObject(optionalUser),
    success: { status: 200, data: playerStatsSchema, shape: 'envelope' },
    errors: R,
  },
  getGamePlayerById: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/player/{memberId}',
    summary: 'A member\'s player stats, by member id',
    description: 'Same answer as `GET /game/player`. A member id of another team, or of nobody: 404.',
    params: { teamId: 'team', memberId: 'member' },
    success: { status: 200, data: playerStatsSchema, shape: 'envelope' },
    errors: R,
  },
  getBoss: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/boss',
    summary: 'The boss battle',
    description:
      'The active boss (`active: true`), or the last one that ended (`active: false`, with its final state), or `boss: null` before the first. ' +
      'Health shown includes the regeneration since the last hit. A boss left unfinished for 24 hours escapes without rewards. ' +
      'Needs `bossBattlesEnabled` (403 feature_disabled).',
    params: team,
    success: { status: 200, data: bossStateSchema, shape: 'envelope' },
    errors: ['feature_disabled'],
  },
  getBossActive: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/boss/active',
    summary: 'Is a boss up?',
    params: team,
    success: { status: 200, data: z.object({ object: z.literal('boss_active'), active: z.boolean() }).meta({ id: 'BossActive' }), shape: 'envelope' },
    errors: ['feature_disabled'],
  },
  spawnBoss: {
    ...game,
    method: 'POST',
    path: '/teams/{teamId}/game/boss/spawn',
    summary: 'Summon a boss',
    description:
      'Counts the customer tickets (widget, email or API, opened by a customer) created in this partition in the last 5 minutes: 5 or more ' +
      'summons an `easy` boss, 10 `medium`, 20 `hard`. A boss already up: 409 `boss_already_active`; fewer than 5 tickets: 422 ' +
      '`not_enough_tickets`; `bossBattlesEnabled` false: 403 `feature_disabled`.',
    params: team,
    body: z.strictObject({}).optional(),
    success: { status: 201, data: bossStateSchema, shape: 'envelope' },
    errors: ['feature_disabled', 'boss_already_active', 'not_enough_tickets', 'parameter_invalid', 'invalid_json', 'idempotency_key_in_use'],
  },
  damageBoss: {
    ...game,
    method: 'POST',
    path: '/teams/{teamId}/game/boss/damage',
    summary: 'Hit the boss with a closed ticket',
    description:
      '`ticketId` must be a closed customer ticket of this team and partition (404 when unknown; 422 `ticket_not_eligible` when open, opened ' +
      'by a member, or imported). Each ticket hits once: a second hit is 409 `boss_hit_already_dealt`. The damage is the service\'s: ' +
      `by priority and the member's skills (a \`damage\` field is refused). No boss up: 409 \`boss_not_active\`. ${USER_DEFAULT} ` +
      '`userName` is the name shown in the battle\'s participants.',
    params: team,
    body: z.strictObject({ ticketId: z.string().regex(/^tkt_[A-Za-z0-9]{8,64}$/, { message: 'must be a ticket id (tkt_…)' }), ...optionalUser, userName: z.string().trim().min(1).max(100).optional() }),
    success: { status: 200, data: bossDamageSchema, shape: 'envelope' },
    errors: [...W, 'boss_not_active', 'boss_hit_already_dealt', 'ticket_not_eligible'],
  },
  listBossHistory: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/boss/history',
    summary: 'Past boss battles',
    description: 'Bosses that ended (defeated or escaped), newest first.',
    params: team,
    query: z.strictObject({ ...paginationFields(20, 100) }),
    success: { status: 200, data: z.array(bossSchema), shape: 'envelope', pagination: 'meta' },
    errors: ['feature_disabled', 'parameter_invalid'],
  },
  getLeaderboard: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/leaderboard',
    summary: 'The leaderboard',
    description:
      '`metric`: `xp` (default), `tickets_closed` or `boss_damage`; `period`: `season` (default) or `week` (ISO week, UTC). Ties share a rank; ' +
      'members in boring mode are left out. `seasonId` (`2026-Q3`) reads a past season\'s final standings (with `period=week`: 400 ' +
      'parameter_invalid; a season not begun yet: 400). Needs `leaderboardsEnabled`.',
    params: team,
    query: z.strictObject({
      metric: z.enum(LEADERBOARD_METRICS).default('xp'),
      period: z.enum(LEADERBOARD_PERIODS).default('season'),
      seasonId: seasonIdField.optional(),
      limit: z.coerce.number().int().min(1).max(100).default(10),
    }),
    success: { status: 200, data: leaderboardSchema, shape: 'envelope' },
    errors: ['feature_disabled', 'parameter_invalid'],
  },
  listAchievements: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/achievements',
    summary: 'The achievement catalog',
    description: 'Every achievement and its unlock rule; with `userId`, `unlockedAt` is that member\'s (null while locked). Needs `achievementsEnabled`.',
    params: team,
    query: z.strictObject(optionalUser),
    success: { status: 200, data: z.array(achievementSchema), shape: 'envelope' },
    errors: R,
  },
  listPlayerAchievements: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/player/{memberId}/achievements',
    summary: 'A member\'s unlocked achievements',
    description: 'Oldest first. Empty for a member in boring mode (hidden, still unlocked).',
    params: { teamId: 'team', memberId: 'member' },
    success: { status: 200, data: z.array(achievementSchema), shape: 'envelope' },
    errors: R,
  },
  listQuests: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/quests',
    summary: 'A member\'s daily and weekly quests',
    description: `Progress counts what the member did in the quest's period (UTC day, ISO week). ${USER_DEFAULT} Needs \`questsEnabled\`.`,
    params: team,
    query: z.strictObject(optionalUser),
    success: { status: 200, data: z.array(questSchema), shape: 'envelope' },
    errors: R,
  },
  claimQuest: {
    ...game,
    method: 'POST',
    path: '/teams/{teamId}/game/quests/{questKey}/claim',
    summary: 'Claim a completed quest\'s rewards',
    description: `Unfinished: 422 \`game_rule_violation\`; claimed already in this period: 409 \`already_done\`. ${USER_DEFAULT}`,
    params: { teamId: 'team', questKey: 'slug' },
    body: actBody,
    success: { status: 200, data: questSchema, shape: 'envelope' },
    errors: [...W, 'game_rule_violation', 'already_done'],
  },
  getDailyPuzzle: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/puzzles/daily',
    summary: 'Today\'s triage puzzle',
    description:
      'Four short ticket summaries; the answer is their keys in the order a support lead would handle them (most urgent first). The same ' +
      `puzzle for everyone on a UTC day. With \`userId\`, whether that member answered and was right. Needs \`puzzlesEnabled\`.`,
    params: team,
    query: z.strictObject(optionalUser),
    success: { status: 200, data: puzzleSchema, shape: 'envelope' },
    errors: R,
  },
  answerDailyPuzzle: {
    ...game,
    method: 'POST',
    path: '/teams/{teamId}/game/puzzles/daily/answer',
    summary: 'Answer today\'s puzzle',
    description: `One answer per member per day (a second: 409 \`already_done\`); a right answer pays the puzzle's rewards. ${USER_DEFAULT}`,
    params: team,
    body: z.strictObject({ ...optionalUser, answer: z.array(z.string().max(10)).length(4) }),
    success: { status: 200, data: puzzleSchema, shape: 'envelope' },
    errors: [...W, 'already_done'],
  },
  giveKudos: {
    ...game,
    method: 'POST',
    path: '/teams/{teamId}/game/kudos',
    summary: 'Give a teammate kudos',
    description:
      'The receiver earns 10 XP and 5 gold. Limits against farming: 3 kudos a UTC day per giver, one a week to the same teammate ' +
      `(422 \`game_rule_violation\`); to oneself: 400 parameter_invalid (param toMemberId). ${USER_DEFAULT} Needs \`socialEnabled\`.`,
    params: team,
    body: z.strictObject({ ...optionalUser, toMemberId: z.string().regex(/^mem_[A-Za-z0-9]{1,64}$/, { message: 'must be a member id (mem_…)' }), message: z.string().trim().min(1).max(280).optional() }),
    success: { status: 201, data: kudosSchema, shape: 'envelope' },
    errors: [...W, 'game_rule_violation'],
  },
  listKudos: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/kudos',
    summary: 'Kudos given and received',
    description: 'Newest first; `userId` narrows to kudos a member gave or received.',
    params: team,
    query: z.strictObject({ ...optionalUser, ...paginationFields(20, 100) }),
    success: { status: 200, data: z.array(kudosSchema), shape: 'envelope', pagination: 'meta' },
    errors: R,
  },
  listCosmetics: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/cosmetics',
    summary: 'The cosmetics shop',
    description: 'Avatar frames and victory messages with their price in gold. Needs `cosmeticsEnabled`.',
    params: team,
    success: { status: 200, data: z.array(cosmeticSchema), shape: 'envelope' },
    errors: ['feature_disabled'],
  },
  purchaseCosmetic: {
    ...game,
    method: 'POST',
    path: '/teams/{teamId}/game/cosmetics/{cosmeticKey}/purchase',
    summary: 'Buy a cosmetic with gold',
    description: `Answers the player. Not enough gold: 422 \`insufficient_gold\`; owned already: 409 \`already_done\`; unknown key: 404. ${USER_DEFAULT}`,
    params: { teamId: 'team', cosmeticKey: 'slug' },
    body: actBody,
    success: { status: 200, data: playerStatsSchema, shape: 'envelope' },
    errors: [...W, 'insufficient_gold', 'already_done'],
  },
  equipCosmetics: {
    ...game,
    method: 'POST',
    path: '/teams/{teamId}/game/cosmetics/equip',
    summary: 'Equip an avatar frame and a victory message',
    description: `Each field: an owned cosmetic's key of that kind, or null to take it off (not owned: 422 \`game_rule_violation\`). ${USER_DEFAULT}`,
    params: team,
    body: z.strictObject({ ...optionalUser, avatarFrame: z.string().max(64).nullable().optional(), victoryMessage: z.string().max(64).nullable().optional() }),
    success: { status: 200, data: playerStatsSchema, shape: 'envelope' },
    errors: [...W, 'game_rule_violation'],
  },
  getCurrentSeason: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/seasons/current',
    summary: 'The current season',
    description: 'Seasons are calendar quarters (UTC). At the end, levels and season XP reset; lifetime stats, gold, skills and cosmetics stay.',
    params: team,
    success: { status: 200, data: season, shape: 'envelope' },
    errors: ['feature_disabled'],
  },
  listSeasons: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/seasons',
    summary: 'Past seasons',
    description: 'Newest first; with `userId`, the level and XP the member ended each with (null if they did not play it). Needs `seasonsEnabled`.',
    params: team,
    query: z.strictObject(optionalUser),
    success: { status: 200, data: z.array(seasonArchiveSchema), shape: 'envelope' },
    errors: R,
  },
  prestige: {
    ...game,
    method: 'POST',
    path: '/teams/{teamId}/game/prestige',
    summary: 'Prestige at the level cap',
    description: `Only at the level cap (50; else 422 \`game_rule_violation\`): the season level and XP go back to 1 and 0, prestige level +1, each adding 5% to all XP (at most 10). ${USER_DEFAULT}`,
    params: team,
    body: actBody,
    success: { status: 200, data: playerStatsSchema, shape: 'envelope' },
    errors: [...W, 'game_rule_violation'],
  },
  listSkills: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/skills',
    summary: 'The skill tree',
    description: '4 skills, 5 levels each, one skill point per level. A member earns a point at every level-up (kept across seasons), 20 at most. Needs `skillTreesEnabled`.',
    params: team,
    success: { status: 200, data: z.array(skillDefSchema), shape: 'envelope' },
    errors: ['feature_disabled'],
  },
  upgradeSkill: {
    ...game,
    method: 'POST',
    path: '/teams/{teamId}/game/skills/{skillKey}/upgrade',
    summary: 'Spend a skill point',
    description: `Unknown skill: 404; at level 5: 422 \`game_rule_violation\`; no point left: 422 \`insufficient_skill_points\`. Answers the player. ${USER_DEFAULT}`,
    params: { teamId: 'team', skillKey: 'slug' },
    body: actBody,
    success: { status: 200, data: playerStatsSchema, shape: 'envelope' },
    errors: [...W, 'insufficient_skill_points', 'game_rule_violation'],
  },
  resetSkills: {
    ...game,
    method: 'POST',
    path: '/teams/{teamId}/game/skills/reset',
    summary: 'Reset the skill tree',
    description: `Every spent point comes back, for 100 gold (422 \`insufficient_gold\`); with nothing spent: 422 \`game_rule_violation\`. ${USER_DEFAULT}`,
    params: team,
    body: actBody,
    success: { status: 200, data: playerStatsSchema, shape: 'envelope' },
    errors: [...W, 'insufficient_gold', 'game_rule_violation'],
  },
  listPlayerXpHistory: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/player/{memberId}/xp-history',
    summary: 'A member\'s XP and gold ledger',
    description:
      'Every payment the member received (closed tickets, boss rewards, quests, achievements, the puzzle, kudos), newest first; `xp` includes ' +
      'the prestige bonus. Empty for a member in boring mode (hidden, still paid). A member id of another team: 404.',
    params: { teamId: 'team', memberId: 'member' },
    query: z.strictObject({ ...paginationFields(20, 100) }),
    success: { status: 200, data: z.array(ledgerEntrySchema), shape: 'envelope', pagination: 'meta' },
    errors: R,
  },
  listPlayerQuests: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/player/{memberId}/quests',
    summary: 'A member\'s quest progress, by member id',
    description: 'Same answer as `GET /game/quests?userId=`. Needs `questsEnabled`.',
    params: { teamId: 'team', memberId: 'member' },
    success: { status: 200, data: z.array(questSchema), shape: 'envelope' },
    errors: R,
  },
  getPlayerInventory: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/player/{memberId}/inventory',
    summary: 'A member\'s gold and owned cosmetics',
    description: 'The cosmetics the member bought (in shop order), what is equipped, and the gold left to spend. Needs `cosmeticsEnabled`.',
    params: { teamId: 'team', memberId: 'member' },
    success: { status: 200, data: inventorySchema, shape: 'envelope' },
    errors: R,
  },
  listPlayerKudos: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/player/{memberId}/kudos',
    summary: 'Kudos a member received',
    description: 'Newest first (`GET /game/kudos?userId=` also lists the ones given). Needs `socialEnabled`.',
    params: { teamId: 'team', memberId: 'member' },
    query: z.strictObject({ ...paginationFields(20, 100) }),
    success: { status: 200, data: z.array(kudosSchema), shape: 'envelope', pagination: 'meta' },
    errors: R,
  },
  getPlayerActivity: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/player/{memberId}/activity',
    summary: 'A member\'s streak, puzzle and kudos figures',
    description:
      'The close streak (UTC days in a row with a paying close; `current` is 0 once a whole day passed without one), daily puzzles ' +
      'answered and solved (and whether today\'s is answered), kudos given and received. Lifetime figures of this partition\'s game.',
    params: { teamId: 'team', memberId: 'member' },
    success: { status: 200, data: activitySchema, shape: 'envelope' },
    errors: R,
  },
  listBossParticipants: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/boss/participants',
    summary: 'Who is fighting the active boss',
    description: 'The active boss\'s participants, most damage first (ties: the earlier last hit first); empty when no boss is up. Needs `bossBattlesEnabled`.',
    params: team,
    success: { status: 200, data: z.array(participant), shape: 'envelope' },
    errors: ['feature_disabled'],
  },
  getAchievement: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/achievements/{achievementKey}',
    summary: 'One achievement of the catalog',
    description: 'Unknown key: 404 (param achievementKey). With `userId`, `unlockedAt` is that member\'s (null while locked, or in boring mode). Needs `achievementsEnabled`.',
    params: { teamId: 'team', achievementKey: 'slug' },
    query: z.strictObject(optionalUser),
    success: { status: 200, data: achievementSchema, shape: 'envelope' },
    errors: R,
  },
  getCosmetic: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/cosmetics/{cosmeticKey}',
    summary: 'One cosmetic of the shop',
    description: 'Unknown key: 404 (param cosmeticKey). Needs `cosmeticsEnabled`.',
    params: { teamId: 'team', cosmeticKey: 'slug' },
    success: { status: 200, data: cosmeticSchema, shape: 'envelope' },
    errors: ['feature_disabled', 'resource_not_found'],
  },
  getSkill: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/skills/{skillKey}',
    summary: 'One skill of the tree',
    description: 'Unknown key: 404 (param skillKey). Needs `skillTreesEnabled`.',
    params: { teamId: 'team', skillKey: 'slug' },
    success: { status: 200, data: skillDefSchema, shape: 'envelope' },
    errors: ['feature_disabled', 'resource_not_found'],
  },
  getGameSummary: {
    ...game,
    method: 'GET',
    path: '/teams/{teamId}/game/summary',
    summary: 'The team\'s game at a glance (a dashboard)',
    description:
      'The current season (null when `seasonsEnabled` is false), the active boss (null when none is up or `bossBattlesEnabled` is false) ' +
      'and the season\'s top 5 by XP (empty when `leaderboardsEnabled` is false; boring-mode members left out). Never 403 for a switched-off ' +
      'feature: the dashboard shows what is on.',
    params: team,
    success: { status: 200, data: summarySchema, shape: 'envelope' },
    errors: [],
  },
});
