import { LookupCache, scopeKey, type Scope } from '@helpdesk/kit';

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
