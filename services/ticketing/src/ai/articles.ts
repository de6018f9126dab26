import type { ArticleSnapshot, EventEnvelope } from '@helpdesk/contracts';
import { scoped } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';

/** `article.*`: the projection suggest-reply searches, applied by `rev` (an older event never wins). */
export async function applyArticle({ models }: { models: TicketingModels }, e: EventEnvelope, a: ArticleSnapshot, deleted = false): Promise<void> {
  const db = scoped(models, { teamId: e.teamId, mode: e.mode });
  const fields = { title: a.title, content: a.content, tags: a.tags, status: a.status, rev: a.rev, deleted };
  const res = await db.articleRefs.updateOne({ _id: a.id, rev: { $lt: a.rev + (deleted ? 1 : 0) } }, { $set: fields });
  if (res.matchedCount) return;
  try {
    await db.articleRefs.insertMany([{ _id: a.id, ...fields }], { lean: true });
  } catch (err) {
    // Already there with a newer (or the same) revision.
    if ((err as { code?: number }).code !== 11000) throw err;
  }
}
