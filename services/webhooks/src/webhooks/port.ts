import type mongoose from 'mongoose';
import type { Scope } from '@helpdesk/kit';
import type { WebhooksModels } from '../collections';

/** What the webhooks' use cases reach in the database. */
export interface WebhookStore {
  conn: mongoose.Connection;
  models: WebhooksModels;
}

/**
 * What a write of a webhook's `isActive` or `events` must go through: `written` runs the write and
 * drops the partition's kept patterns once it committed (active-patterns.ts).
 */
export interface PatternWrites {
  written<R>(scope: Scope, write: () => Promise<R>): Promise<R>;
}
