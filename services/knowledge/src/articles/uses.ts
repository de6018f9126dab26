import type mongoose from 'mongoose';
import { scoped, type Scope } from '@helpdesk/kit';
import type { ArticleStore } from './port';

/** Adds each article's uses (ticket replies citing it); ids of other teams, partitions or deleted articles match nothing. */
export async function addArticleUses({ models }: Pick<ArticleStore, 'models'>, scope: Scope, uses: Map<string, number>, session: mongoose.ClientSession): Promise<void> {
  if (!uses.size) return;
  await scoped(models, scope).articles.bulkWrite(
    [...uses].map(([id, n]) => ({ updateOne: { filter: { _id: id }, update: { $inc: { useCount: n } } } })),
    { session, ordered: false },
  );
}
