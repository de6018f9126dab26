import type { ServiceDeps, Subscription } from '@helpdesk/kit';
import { tombstoneSubscriptions } from './deletions';
import type { DataopsModels } from '../collections';
import type { DataopsRules } from '../rules';

/**
 * dataops owns no copy of another service's records (docs/adr/0034); it only notes deletions (ids and
 * times) for the incremental export (docs/adr/0036).
 */
export const consumers = (_rules: DataopsRules, { models }: ServiceDeps<DataopsModels>): Subscription[] => [...tombstoneSubscriptions(models)];
