import { startService, type RunningService, type ServiceOptions } from '@helpdesk/kit';
import type { KnowledgeRules } from './rules';
import { knowledgeService } from './service';

export { knowledgeService } from './service';
export type { KnowledgeRules } from './rules';

export type KnowledgeOptions = ServiceOptions;
export type RunningKnowledge = RunningService<KnowledgeRules>;

/** Connects (database `knowledge` by default), builds indexes, starts the outbox relay, the consumers and the view counter, and listens. */
export function startKnowledge(opts: KnowledgeOptions): Promise<RunningKnowledge> {
  return startService(knowledgeService, opts);
}
