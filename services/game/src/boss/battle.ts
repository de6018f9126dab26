import type { BossDifficulty, SkillKey } from '@helpdesk/contracts';
import { SKILLS, type Priority } from '../player/progression';
import type { BossDoc } from './model';

/**
 * The boss battle's rules as pure functions (docs/adr/0032, services/game/README.md): difficulties,
 * damage, the shield, enrage, regeneration, escape and the rewards.
 */
export const SPAWN_WINDOW_MS = 5 * 60_000;
export const ESCAPE_AFTER_MS = 24 * 3_600_000;

export const DIFFICULTIES: Record<BossDifficulty, { minTickets: number; name: string; level: number; maxHealth: number; shieldHits: number; xpMultiplier: number; goldMultiplier: number }> = {
  easy: { minTickets: 5, name: 'Backlog Goblin', level: 1, maxHealth: 500, shieldHits: 0, xpMultiplier: 1, goldMultiplier: 1 },
  medium: { minTickets: 10, name: 'Escalation Hydra', level: 2, maxHealth: 1500, shieldHits: 2, xpMultiplier: 1.5, goldMultiplier: 1.5 },
  hard: { minTickets: 20, name: 'The SLA Lich', level: 3, maxHealth: 4000, shieldHits: 3, xpMultiplier: 2, goldMultiplier: 2 },
};

/** The difficulty `count` customer tickets in the window summon, or null under the easiest threshold. */
export function difficultyFor(count: number): BossDifficulty | null {
  if (count >= DIFFICULTIES.hard.minTickets) return 'hard';
  if (count >= DIFFICULTIES.medium.minTickets) return 'medium';
  if (count >= DIFFICULTIES.easy.minTickets) return 'easy';
  return null;
}

/** A hit's damage by the ticket's priority, before the shield. */
export const HIT_DAMAGE: Record<Priority, number> = { low: 10, normal: 20, high: 35, urgent: 50 };
/** Enrage starts at or under 30% health; the shield rises again on entering phase 2 (under 60%). */
export const PHASE_2_AT = 0.6;
export const ENRAGE_AT = 0.3;
/** Regeneration per whole minute without a hit, as a fraction of max health (doubled while enraged). */
export const HEAL_PER_MINUTE = 0.01;
/** Enrage raises the boss's XP rewards by this much. */
export const ENRAGE_XP_MULTIPLIER_BONUS = 0.5;
/** Reward pool: XP = max health × ½ × xpMultiplier, gold = max health ÷ 5 × goldMultiplier; the killing blow adds 20% of each. */
export const KILL_BONUS = 0.2;

export const healthPercent = (health: number, max: number) => Math.round((health / max) * 10_000) / 10_000;
export const phaseOf = (health: number, max: number) => (health / max > PHASE_2_AT ? 1 : health / max > ENRAGE_AT ? 2 : 3);
export const healPerMinute = (b: Pick<BossDoc, 'maxHealth' | 'enraged'>) => Math.round(b.maxHealth * HEAL_PER_MINUTE * (b.enraged ? 2 : 1));
export const rewardsOf = (b: Pick<BossDoc, 'difficulty' | 'enraged'>) => ({
  xpMultiplier: DIFFICULTIES[b.difficulty].xpMultiplier + (b.enraged ? ENRAGE_XP_MULTIPLIER_BONUS : 0),
  goldMultiplier: DIFFICULTIES[b.difficulty].goldMultiplier,
});

/** The boss's health after regenerating until `now` (whole minutes since the last hit or heal). */
export function regenerated(b: BossDoc, now: Date): Pick<BossDoc, 'currentHealth' | 'totalHealed' | 'lastHealAt'> {
  const minutes = Math.floor((now.getTime() - b.lastHealAt.getTime()) / 60_000);
  if (b.status !== 'active' || minutes <= 0) return { currentHealth: b.currentHealth, totalHealed: b.totalHealed, lastHealAt: b.lastHealAt };
  const healed = Math.min(b.maxHealth - b.currentHealth, minutes * healPerMinute(b));
  return { currentHealth: b.currentHealth + healed, totalHealed: b.totalHealed + healed, lastHealAt: new Date(b.lastHealAt.getTime() + minutes * 60_000) };
}

export interface HitOutcome {
  damage: number;
  shieldBlocked: boolean;
  shieldBroken: boolean;
  enrageTriggered: boolean;
  isKillingBlow: boolean;
  previousHealth: number;
  /** The boss's fields after the hit. */
  next: Pick<BossDoc, 'currentHealth' | 'totalHealed' | 'lastHealAt' | 'shield' | 'shieldRaisedInPhase2' | 'enraged' | 'totalDamage'>;
}

/**
 * One hit: regeneration first, then the shield (an active shield lets through 20% of the hit per
 * Shield Breaker level and loses one hit point, an urgent ticket breaks it at once), then the damage,
 * capped at the health left (so the sum of the hits is exactly what the boss lost).
 */
export function hit(b: BossDoc, input: { priority: Priority; skills: Record<SkillKey, number> }, now: Date): HitOutcome {
  const regen = regenerated(b, now);
  const raw = Math.round(HIT_DAMAGE[input.priority] * (1 + input.skills.boss_slayer * SKILLS.boss_slayer.perLevel));
  const shieldBlocked = b.shield.active;
  let shield = { ...b.shield };
  let dealt = raw;
  let shieldBroken = false;
  if (shieldBlocked) {
    dealt = Math.floor(raw * input.skills.shield_breaker * SKILLS.shield_breaker.perLevel);
    const left = input.priority === 'urgent' ? 0 : shield.hitsRemaining - 1;
    shieldBroken = left <= 0;
    shield = { active: !shieldBroken, hitsRemaining: Math.max(0, left) };
  }
  const damage = Math.min(dealt, regen.currentHealth);
  const health = regen.currentHealth - damage;
  let shieldRaisedInPhase2 = b.shieldRaisedInPhase2;
  // Entering phase 2 raises the shield once more (medium and hard bosses).
  if (!shieldRaisedInPhase2 && health > 0 && phaseOf(health, b.maxHealth) >= 2 && DIFFICULTIES[b.difficulty].shieldHits > 0) {
    shieldRaisedInPhase2 = true;
    shield = { active: true, hitsRemaining: DIFFICULTIES[b.difficulty].shieldHits };
  }
  const enrageTriggered = !b.enraged && health > 0 && health / b.maxHealth <= ENRAGE_AT;
  return {
    damage,
    shieldBlocked,
    shieldBroken,
    enrageTriggered,
    isKillingBlow: regen.currentHealth > 0 && health === 0,
    previousHealth: regen.currentHealth,
    next: {
      currentHealth: health,
      totalHealed: regen.totalHealed,
      lastHealAt: now,
      shield: health === 0 ? { active: false, hitsRemaining: 0 } : shield,
      shieldRaisedInPhase2,
      enraged: b.enraged || enrageTriggered,
      totalDamage: b.totalDamage + damage,
    },
  };
}

/** Each participant's share of the pool by damage dealt, the killing blow's bonus on top. */
export function battleRewards(b: BossDoc, killerId: string): { memberId: string; damage: number; xp: number; gold: number; finalBlow: boolean }[] {
  const { xpMultiplier, goldMultiplier } = rewardsOf(b);
  const poolXp = (b.maxHealth / 2) * xpMultiplier;
  const poolGold = (b.maxHealth / 5) * goldMultiplier;
  const total = b.participants.reduce((s, p) => s + p.damage, 0) || 1;
  return b.participants.map((p) => {
    const finalBlow = p.memberId === killerId;
    const share = p.damage / total + (finalBlow ? KILL_BONUS : 0);
    return { memberId: p.memberId, damage: p.damage, xp: Math.floor(poolXp * share), gold: Math.floor(poolGold * share), finalBlow };
  });
}
