import type mongoose from 'mongoose';

/** Builds every model's indexes (called once at start-up, before requests and events). */
export async function initModels(_conn: mongoose.Connection): Promise<void> {
  // Filled in as the resources land: customers, groups, memberships, statuses.
}
