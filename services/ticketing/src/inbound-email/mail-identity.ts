import { scoped, type TypedEvent } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import { isDuplicateKey } from './config';

/** `settings.updated`: the team's name and support address (the From of reply mails), the newest event winning. */
export async function applyMailIdentity({ models }: { models: TicketingModels }, e: TypedEvent<'settings.updated'>): Promise<void> {
  const eventAt = new Date(e.occurredAt);
  const set = { teamName: e.data.settings.teamName, supportEmail: e.data.settings.supportEmail, eventAt };
  try {
    await scoped(models, { teamId: e.teamId }).teamMailIdentities.updateOne({ eventAt: { $lt: eventAt } }, { $set: set }, { upsert: true });
  } catch (err) {
    // A newer row exists (the filter missed it, the upsert hit its _id): keep it.
    if (!isDuplicateKey(err)) throw err;
  }
}
