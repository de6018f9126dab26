import type mongoose from 'mongoose';
import type { Priority } from '@helpdesk/contracts';
import { foundOr404, LookupCache, scoped, scopeKey, type Scope } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import { EVALUATION_ORDER, type SlaRuleDoc } from './model';

/**
 * A partition's enabled rules in evaluation order, kept per process when this is the service's only
 * instance (every ticket write looks them up); dropped by each of this service's rule writes, their
 * only writer, once it committed (docs/adr/0045).
 */
export type EnabledSlaRules = LookupCache<readonly SlaRuleDoc[]>;

/** `soleInstance`: the service's; otherwise nothing is kept. */
export const keepEnabledSlaRules = (soleInstance = false): EnabledSlaRules => new LookupCache<readonly SlaRuleDoc[]>({ enabled: soleInstance });

/** A write of the scope's rules, after which its kept enabled rules are dropped. */
export const slaRuleWrite = <R>(enabled: EnabledSlaRules, scope: Scope, write: () => Promise<R>) => enabled.afterWrite(scopeKey(scope), write);

type ModelDeps = { models: TicketingModels };

/** The partition's rules in evaluation order. */
export const orderedSlaRules = ({ models }: ModelDeps, scope: Scope, session?: mongoose.ClientSession) =>
  scoped(models, scope).slaRules.find({}).sort(EVALUATION_ORDER).session(session ?? null).lean<SlaRuleDoc[]>();

export const slaRuleOr404 = ({ models }: ModelDeps, scope: Scope, id: string, session?: mongoose.ClientSession) =>
  foundOr404(scoped(models, scope).slaRules.findOne({ _id: id }).session(session ?? null).lean<SlaRuleDoc>(), 'sla_rule', id);

/** The first enabled rule for `priority`, in evaluation order. */
export async function slaRuleFor(
  { models, enabledSlaRules: enabled }: ModelDeps & { enabledSlaRules: EnabledSlaRules },
  scope: Scope,
  priority: Priority,
  session: mongoose.ClientSession,
): Promise<SlaRuleDoc | null> {
  if (!enabled.enabled) {
    // Every ticket create reads it: one find through the driver, not mongoose's Query (stored as written, nothing to cast).
    return scoped(models, scope).slaRules.leanFindOne<SlaRuleDoc>({ priorityKey: priority, enabled: true }, { sort: EVALUATION_ORDER, session });
  }
  const rules = await enabled.get(scopeKey(scope), () => scoped(models, scope).slaRules.find({ enabled: true }).sort(EVALUATION_ORDER).lean<SlaRuleDoc[]>());
  return rules.find((r) => r.priorityKey === priority) ?? null;
}

/** Rewrites positions 0..n-1 in the given order (inside the caller's transaction). */
export async function renumberSlaRules({ models }: ModelDeps, scope: Scope, ids: string[], session: mongoose.ClientSession, now: Date) {
  await scoped(models, scope).slaRules.bulkWrite(
    ids.map((id, position) => ({ updateOne: { filter: { _id: id }, update: { $set: { position, updatedAt: now } } } })),
    { session },
  );
}
