import { LookupCache, microBatches, scoped, scopeKey, type Scope } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import type { AutomationDoc } from './model';

/**
 * Per partition, the event types some enabled rule triggers on: most events match none and are
 * answered without a read. Kept only when this is the service's sole instance, dropped by every
 * rule write here (the only writer of a rule's trigger and `enabled`) once it committed (docs/adr/0045).
 */
export type AutomationTriggers = LookupCache<ReadonlySet<string>>;

/** `soleInstance`: the service's; otherwise nothing is kept. */
export const keepAutomationTriggers = (soleInstance = false): AutomationTriggers => new LookupCache<ReadonlySet<string>>({ enabled: soleInstance });

/** A write of the scope's rules, after which its kept trigger types are dropped. */
export const ruleWrite = <R>(triggers: AutomationTriggers, scope: Scope, write: () => Promise<R>) => triggers.afterWrite(scopeKey(scope), write);

/** Whether some enabled rule of the scope triggers on `type` (read when asked: never an answer older than the question). */
export type TriggerMatch = (scope: Scope, type: string) => Promise<boolean>;

interface Question {
  scope: Scope;
  type: string;
  matched: boolean;
}

/**
 * Whether an event has rules to run (docs/adr/0028), asked once per trigger event. The sole instance
 * answers from its kept trigger types (`triggers`, docs/adr/0045). With replicas (nothing kept), the
 * questions asked in the same turn of the event loop (the deliveries the bus has in flight) are
 * answered together, one read per partition among them (docs/adr/0071) instead of one per event:
 * each is still answered by a read made after it was asked, so a rule written before the event
 * was delivered is seen exactly as with a read of its own.
 */
export function automationTriggerMatch(models: TicketingModels, triggers: AutomationTriggers): TriggerMatch {
  const typesOf = async (scope: Scope, types?: string[]): Promise<Set<string>> => {
    const filter = types ? { enabled: true, triggerEvent: types.length === 1 ? types[0] : { $in: types } } : { enabled: true };
    const rows = await scoped(models, scope).automations.leanFind<Pick<AutomationDoc, 'triggerEvent'>>(filter, { projection: { _id: 0, triggerEvent: 1 } });
    return new Set(rows.map((r) => r.triggerEvent));
  };
  if (triggers.enabled) return async (scope, type) => (await triggers.get(scopeKey(scope), () => typesOf(scope))).has(type);
  const batches = microBatches<Question>(async (questions) => {
    const byScope = new Map<string, { scope: Scope; types: Set<string>; questions: Question[] }>();
    for (const q of questions) {
      const key = scopeKey(q.scope);
      const group = byScope.get(key) ?? { scope: q.scope, types: new Set<string>(), questions: [] };
      group.types.add(q.type);
      group.questions.push(q);
      byScope.set(key, group);
    }
    await Promise.all(
      [...byScope.values()].map(async (g) => {
        const found = await typesOf(g.scope, [...g.types]);
        for (const q of g.questions) q.matched = found.has(q.type);
      }),
    );
  });
  return async (scope, type) => {
    const q: Question = { scope: { teamId: scope.teamId, mode: scope.mode }, type, matched: false };
    await batches.submit(q);
    return q.matched;
  };
}
