import type { AchievementDef } from '../achievements/catalog';
import { SKILL_KEYS, SKILL_MAX_LEVEL } from '@helpdesk/contracts';
import type { GameMemberDoc } from '../members/model';
import { dayIdOf, previousDayId, seasonOf } from '../seasons/calendar';
import { emptyStats, noSkills, type PlayerDoc } from './model';
import { levelProgress, prestigeBonusOf, SKILLS } from './progression';

/**
 * The spec's `player_stats` for a member as of `now`: a player from an earlier season shows the new
 * season's level 1 and 0 XP (the rollover is written at their next game event); a streak without a
 * close yesterday or today shows 0. Boring mode hides XP, levels, boss and achievement figures.
 */
export function playerView(member: GameMemberDoc, p: PlayerDoc | null, now: Date) {
  const season = seasonOf(now);
  const seasonXp = p && p.seasonId === season.id ? p.seasonXp : 0;
  const progress = levelProgress(seasonXp);
  const today = dayIdOf(now);
  const streakAlive = !!p?.streak.lastDayId && (p.streak.lastDayId === today || p.streak.lastDayId === previousDayId(today));
  const stats = p?.stats ?? emptyStats();
  const skills = p?.skills ?? noSkills();
  const hide = member.boringMode;
  const shown = <T>(v: T): T | null => (hide ? null : v);
  return {
    object: 'player_stats' as const,
    memberId: member._id,
    name: member.name,
    avatarUrl: member.avatarUrl,
    boringMode: member.boringMode,
    season: { id: season.id, name: season.name, startsAt: season.startsAt.toISOString(), endsAt: season.endsAt.toISOString() },
    level: shown(progress.level),
    xp: shown(seasonXp),
    xpToNextLevel: shown(progress.xpToNextLevel),
    xpInCurrentLevel: shown(progress.xpInCurrentLevel),
    xpProgress: shown(Math.round(progress.xpProgress * 10_000) / 10_000),
    lifetimeXp: shown(p?.lifetimeXp ?? 0),
    gold: p?.gold ?? 0,
    prestigeLevel: p?.prestigeLevel ?? 0,
    prestigeBonus: prestigeBonusOf(p?.prestigeLevel ?? 0),
    streaks: { current: streakAlive ? p!.streak.current : 0, max: p?.streak.max ?? 0 },
    stats: {
      ticketsClosed: stats.ticketsClosed,
      bossesDefeated: shown(stats.bossesDefeated),
      finalBlows: shown(stats.finalBlows),
      achievementsUnlocked: shown(p?.achievements.length ?? 0),
      questsCompleted: stats.questsCompleted,
    },
    skills: Object.fromEntries(SKILL_KEYS.map((k) => [k, { level: skills[k], maxLevel: SKILL_MAX_LEVEL, effect: SKILLS[k].effect(skills[k]) }])) as Record<
      (typeof SKILL_KEYS)[number],
      { level: number; maxLevel: typeof SKILL_MAX_LEVEL; effect: string }
    >,
    availableSkillPoints: p?.skillPointsAvailable ?? 0,
    totalSkillPoints: p?.skillPointsEarned ?? 0,
    cosmetics: { avatarFrame: p?.cosmetics.avatarFrame ?? null, victoryMessage: p?.cosmetics.victoryMessage ?? null, owned: p?.cosmetics.owned ?? [] },
  };
}
export type PlayerView = ReturnType<typeof playerView>;

/** An achievement of the catalog, with when the member unlocked it (null: not yet). */
export const achievementView = (a: AchievementDef, unlocked: Map<string, string>) => ({
  key: a.key,
  name: a.name,
  description: a.description,
  gold: a.gold,
  unlockedAt: unlocked.get(a.key) ?? null,
});
