import { microBatches, type MicroBatches } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import { applyFacts, type FactChange } from './facts';

/** How the ticket facts are kept (docs/adr/0030). */
export interface FactWriter {
  /**
   * The consumers' way in: the fact changes that arrive together (what the bus has in flight) are
   * applied as ONE ordered bulk write; each submitter resolves once its batch is written. See `applyFacts`.
   */
  facts: MicroBatches<FactChange>;
  /** One batch written now (a batch of one is the rule one event at a time), for tests. */
  applyFacts(changes: readonly FactChange[]): Promise<void>;
}

export function factWriter(deps: { models: TicketingModels }): FactWriter {
  const apply = (changes: readonly FactChange[]) => applyFacts(deps, changes);
  return { facts: microBatches(apply), applyFacts: apply };
}
