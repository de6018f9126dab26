import type mongoose from 'mongoose';
import type { CustomFieldRules, Scope } from '@helpdesk/kit';
import type { CustomersModels } from '../collections';

/** What the customers' use cases reach in the database. */
export interface CustomerStore {
  conn: mongoose.Connection;
  models: CustomersModels;
}

/** What the customers' use cases need from customer statuses: that a status key exists. */
export interface KnownStatuses {
  assertKnown(scope: Scope, key: string, param: string, session?: mongoose.ClientSession): Promise<void>;
}

/** What the customers' use cases need from the team's custom field definitions. */
export type CustomerFields = Pick<CustomFieldRules, 'resolve' | 'resolverFor'>;
