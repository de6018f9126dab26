import { healPerMinute, healthPercent, phaseOf, regenerated, rewardsOf } from './battle';
import type { BossDoc } from './model';

/** The public boss (the spec's `boss_state.boss`), its health as of `now` (regeneration included). */
export function bossView(b: BossDoc, now: Date) {
  const { currentHealth, totalHealed } = regenerated(b, now);
  const end = b.endedAt ?? now;
  return {
    id: b._id,
    name: b.name,
    level: b.level,
    difficulty: b.difficulty,
    status: b.status,
    maxHealth: b.maxHealth,
    currentHealth,
    healthPercent: healthPercent(currentHealth, b.maxHealth),
    phase: phaseOf(currentHealth, b.maxHealth),
    abilities: { shield: { ...b.shield }, enrage: { active: b.enraged }, heal: { totalHealed, perMinute: b.status === 'active' ? healPerMinute(b) : 0 } },
    rewards: rewardsOf(b),
    participants: b.participants.map((p) => ({ memberId: p.memberId, name: p.name, damage: p.damage, hits: p.hits, lastHitAt: new Date(p.lastHitAt).toISOString() })),
    totalDamage: b.totalDamage,
    spawnedAt: b.spawnedAt.toISOString(),
    escapesAt: b.escapesAt.toISOString(),
    endedAt: b.endedAt ? b.endedAt.toISOString() : null,
    battleDuration: Math.max(0, Math.floor((end.getTime() - b.spawnedAt.getTime()) / 1000)),
  };
}
export type BossView = ReturnType<typeof bossView>;
