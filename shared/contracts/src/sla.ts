import { z } from 'zod';

/**
 * A ticket's SLA state (docs/adr/0026): the rule that applied and, per target (first response,
 * resolution), when it is due and how it ended. Carried by the ticket view as `sla` (null when no
 * enabled rule matches the ticket's priority) and, optionally, by ticket event snapshots.
 */
export const SLA_TIERS = ['gold', 'silver', 'bronze', 'missed'] as const;
export type SlaTier = (typeof SLA_TIERS)[number];

/** `active`: the clock runs; `paused`: the ticket is `pending`; `met`: done in time; `breached`: the due time passed first (final). */
export const SLA_TARGET_STATUSES = ['active', 'paused', 'met', 'breached'] as const;
export type SlaTargetStatus = (typeof SLA_TARGET_STATUSES)[number];

const iso = z.string().datetime();

export const slaTargetSchema = z.object({
  status: z.enum(SLA_TARGET_STATUSES),
  /** The target in minutes (business minutes unless the rule is 24x7). */
  targetMinutes: z.number().int().positive(),
  /** When the target falls due; null while the clock is paused (the ticket is `pending`). */
  dueAt: iso.nullable(),
  /** When the first agent reply (first response) or the resolution happened, even after a breach. */
  achievedAt: iso.nullable(),
  /** When the due time passed unmet; null if it never did. */
  breachedAt: iso.nullable(),
  /** Business minutes (or wall minutes for 24x7) the clock had run when the target was achieved; null before. */
  elapsedMinutes: z.number().nonnegative().nullable(),
});
export type SlaTarget = z.infer<typeof slaTargetSchema>;

export const slaStateSchema = z.object({
  ruleId: z.string(),
  ruleName: z.string(),
  use24x7: z.boolean(),
  firstResponse: slaTargetSchema,
  resolution: slaTargetSchema,
  /** `slaTierOf(this)`, kept with the state so clients need not compute it. */
  tier: z.enum(SLA_TIERS).nullable(),
});
export type SlaState = z.infer<typeof slaStateSchema>;

/** The parts of an SLA state the tier rule reads. */
export interface SlaTierInput {
  firstResponse: Pick<SlaTarget, 'status'>;
  /** `achievedAt` as the API answers it (ISO text) or as stored (a Date). */
  resolution: Pick<SlaTarget, 'status' | 'targetMinutes' | 'elapsedMinutes'> & { achievedAt: string | Date | null };
}

/**
 * The SLA tier of a ticket (docs/adr/0026), shared by analytics (agent `slaTiers`) and the game (XP bonus):
 * - null: no SLA rule applied, or the ticket is not resolved/closed yet (resolution not achieved);
 * - `missed`: resolved/closed, but the resolution target was breached;
 * - `bronze`: resolution met, but the first response was breached or never sent;
 * - `silver`: both met;
 * - `gold`: both met and resolved within half the resolution target (the clock's minutes, as measured).
 */
export function slaTierOf(sla: SlaTierInput | null | undefined): SlaTier | null {
  if (!sla) return null;
  const { firstResponse, resolution } = sla;
  if (!resolution.achievedAt) return null;
  if (resolution.status === 'breached') return 'missed';
  if (firstResponse.status !== 'met') return 'bronze';
  return resolution.elapsedMinutes !== null && resolution.elapsedMinutes <= resolution.targetMinutes / 2 ? 'gold' : 'silver';
}
