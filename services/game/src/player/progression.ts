import { SKILL_MAX_LEVEL, type SkillKey } from '@helpdesk/contracts';

/**
 * The numbers of the game (services/game/README.md has them as tables; docs/adr/0032 argues them).
 * Pure functions: the rules read them, the tests check them.
 */

export type Priority = 'low' | 'normal' | 'high' | 'urgent';

/** XP and gold a closed customer ticket pays, by priority, before bonuses. */
export const TICKET_XP: Record<Priority, number> = { low: 10, normal: 20, high: 35, urgent: 50 };
export const TICKET_GOLD: Record<Priority, number> = { low: 5, normal: 10, high: 15, urgent: 25 };
/** Bonus fraction of the ticket's XP by SLA tier (`missed` and no SLA: none). */
export const SLA_BONUS: Record<string, number> = { gold: 0.5, silver: 0.25, bronze: 0.1, missed: 0 };
/** +5% per day of streak beyond the first, at most +25%. */
export const STREAK_BONUS_PER_DAY = 0.05;
export const STREAK_BONUS_MAX = 0.25;
/** Each prestige level adds 5% to all XP; 10 prestige levels at most. */
export const PRESTIGE_BONUS_PER_LEVEL = 0.05;
export const PRESTIGE_MAX = 10;

export const LEVEL_CAP = 50;
/** Total season XP needed to reach `level`: 100 XP from 1 to 2, 200 from 2 to 3, …, 100 × L from L to L+1. */
export const xpForLevel = (level: number) => 50 * level * (level - 1);

export function levelOf(xp: number): number {
  // Inverse of xpForLevel, then corrected for floating point.
  let level = Math.min(LEVEL_CAP, Math.max(1, Math.floor((1 + Math.sqrt(1 + (4 * xp) / 50)) / 2)));
  while (level < LEVEL_CAP && xpForLevel(level + 1) <= xp) level++;
  while (level > 1 && xpForLevel(level) > xp) level--;
  return level;
}

export function levelProgress(xp: number) {
  const level = levelOf(xp);
  if (level >= LEVEL_CAP) return { level, xpInCurrentLevel: xp - xpForLevel(LEVEL_CAP), xpToNextLevel: 0, xpProgress: 1 };
  const span = xpForLevel(level + 1) - xpForLevel(level);
  const inLevel = xp - xpForLevel(level);
  return { level, xpInCurrentLevel: inLevel, xpToNextLevel: span - inLevel, xpProgress: inLevel / span };
}

export const prestigeBonusOf = (prestigeLevel: number) => Math.round(prestigeLevel * PRESTIGE_BONUS_PER_LEVEL * 100) / 100;

/** The skill tree: what one level of each skill does. */
export const SKILLS: Record<SkillKey, { name: string; perLevel: number; effect: (level: number) => string; effectPerLevel: string }> = {
  swift_resolver: { name: 'Swift Resolver', perLevel: 0.04, effectPerLevel: '+4% XP from closed tickets', effect: (l) => `+${l * 4}% XP from closed tickets` },
  gold_digger: { name: 'Gold Digger', perLevel: 0.05, effectPerLevel: '+5% gold from closed tickets', effect: (l) => `+${l * 5}% gold from closed tickets` },
  boss_slayer: { name: 'Boss Slayer', perLevel: 0.1, effectPerLevel: '+10% boss damage', effect: (l) => `+${l * 10}% boss damage` },
  shield_breaker: {
    name: 'Shield Breaker',
    perLevel: 0.2,
    effectPerLevel: '20% of a hit goes through the boss\'s shield',
    effect: (l) => `${l * 20}% of a hit goes through the boss's shield`,
  },
};
export const SKILL_POINTS_MAX = SKILL_MAX_LEVEL * Object.keys(SKILLS).length;
export const SKILL_RESET_GOLD = 100;

export interface TicketPay {
  xp: number;
  gold: number;
  breakdown: Record<string, number>;
}

/** What a closed customer ticket pays: base by priority, plus the SLA, streak and skill bonuses (the prestige bonus is added to every award). */
export function ticketPay(input: { priority: Priority; slaTier: string | null; streakDays: number; skills: Record<SkillKey, number> }): TicketPay {
  const base = TICKET_XP[input.priority];
  const sla = SLA_BONUS[input.slaTier ?? ''] ?? 0;
  const streak = Math.min(STREAK_BONUS_MAX, Math.max(0, input.streakDays - 1) * STREAK_BONUS_PER_DAY);
  const skill = input.skills.swift_resolver * SKILLS.swift_resolver.perLevel;
  const xp = Math.round(base * (1 + sla + streak + skill));
  const gold = Math.round(TICKET_GOLD[input.priority] * (1 + input.skills.gold_digger * SKILLS.gold_digger.perLevel));
  return { xp, gold, breakdown: { base, sla, streak: Math.round(streak * 100) / 100, skill: Math.round(skill * 100) / 100 } };
}
