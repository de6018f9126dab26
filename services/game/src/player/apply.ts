import { ACHIEVEMENTS, type AchievementDef } from '../achievements/catalog';
import { QUESTS, type QuestDef } from '../quests/catalog';
import { previousDayId } from '../seasons/calendar';
import { emptyStats, noSkills, type LedgerKind, type PlayerDoc } from './model';
import { levelOf, prestigeBonusOf, SKILL_POINTS_MAX } from './progression';

/**
 * The payment rules as pure functions of a player's state: what a write of the player is made of.
 * `award` (player/rules.ts) sends what they compute to the store one payment at a time; the ticket
 * batch (tickets/batch.ts) applies several payments of one player in memory, in order, then writes the
 * sum once (docs/adr/0047). One set of rules for both.
 */

/** A new player's fields (created at first use), in `seasonId`. */
export const newPlayerFields = (seasonId: string, now: Date) => ({
  seasonId, seasonXp: 0, lifetimeXp: 0, gold: 0, prestigeLevel: 0, streak: { current: 0, max: 0, lastDayId: null }, stats: emptyStats(),
  skillPointsEarned: 0, skillPointsAvailable: 0, skills: noSkills(), cosmetics: { owned: [], avatarFrame: null, victoryMessage: null },
  achievements: [], pastSeasons: [], createdAt: now,
});

/** The streak after a close on `today`: the same day keeps it, the next day adds one, a gap starts again at 1. */
export function nextStreak(s: PlayerDoc['streak'], today: string): PlayerDoc['streak'] {
  const current = s.lastDayId === today ? s.current : s.lastDayId === previousDayId(today) ? s.current + 1 : 1;
  return { current, max: Math.max(s.max, current), lastDayId: today };
}

export interface AwardInput {
  /** XP before the prestige bonus. */
  xp: number;
  gold: number;
  /** Counters of `stats` to add to. */
  stats?: Partial<PlayerDoc['stats']>;
}

export interface AwardStep {
  /** XP paid, prestige bonus included. */
  xp: number;
  prestige: number;
  levelBefore: number;
  levelAfter: number;
  /** What the award adds, as the `$inc` of the player's write (season and lifetime XP, gold, stats, skill points). */
  inc: Record<string, number>;
}

/** What paying `a` to the player `p` as it is adds: XP with the prestige bonus, the level-ups and their skill points (at most 20 in all). */
export function awardStep(p: PlayerDoc, a: AwardInput): AwardStep {
  const prestige = prestigeBonusOf(p.prestigeLevel);
  const xp = Math.round(a.xp * (1 + prestige));
  const inc: Record<string, number> = { seasonXp: xp, lifetimeXp: xp, gold: a.gold };
  for (const [k, v] of Object.entries(a.stats ?? {})) inc[`stats.${k}`] = v;
  const levelBefore = levelOf(p.seasonXp);
  const levelAfter = levelOf(p.seasonXp + xp);
  const points = Math.max(0, Math.min(levelAfter - levelBefore, SKILL_POINTS_MAX - p.skillPointsEarned));
  if (points) Object.assign(inc, { skillPointsEarned: points, skillPointsAvailable: points });
  return { xp, prestige, levelBefore, levelAfter, inc };
}

/** Adds an `$inc` (dotted paths one level deep, as `awardStep` makes them) to a player held in memory. */
export function applyInc(p: PlayerDoc, inc: Record<string, number>): void {
  for (const [path, v] of Object.entries(inc)) {
    const [head, sub] = path.split('.') as [string, string | undefined];
    const obj = p as unknown as Record<string, unknown>;
    if (sub === undefined) obj[head] = ((obj[head] as number | undefined) ?? 0) + v;
    else {
      const inner = obj[head] as Record<string, number>;
      inner[sub] = (inner[sub] ?? 0) + v;
    }
  }
}

/** The achievements the player's state now earns and does not hold yet, in catalog order. */
export const achievementsEarned = (p: PlayerDoc): AchievementDef[] => {
  const have = new Set(p.achievements.map((a) => a.key));
  return ACHIEVEMENTS.filter((a) => !have.has(a.key) && a.unlocked(p));
};

/** The quests that count ledger rows of `kind`, in catalog order. */
export const questsCounting = (kind: LedgerKind): readonly QuestDef[] => QUESTS.filter((q) => q.counts === kind);

/** A quest completes on the row that brings its period's count to exactly its target (once per period). */
export const completesOn = (q: QuestDef, count: number) => count === q.target;

/** A season rollover: level and season XP start again in `toSeasonId`; the season left is kept in `pastSeasons` (everything else stays). */
export function rolloverOf(p: PlayerDoc) {
  const finalLevel = levelOf(p.seasonXp);
  return { finalLevel, past: { seasonId: p.seasonId, level: finalLevel, xp: p.seasonXp } };
}
