import type mongoose from 'mongoose';
import { eventScopeOf, foundOr404, scoped, withOutbox, type Emit, type RequestContext, type Scope } from '@helpdesk/kit';
import type { ArticleDoc } from './model';
import type { ArticleStore } from './port';
import { articleSnapshot } from './view';

/** Its revisions go with it. */
export async function removeArticle({ conn, models }: ArticleStore, ctx: RequestContext, id: string): Promise<{ id: string; deleted: true }> {
  const db = scoped(models, ctx);
  await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
    const cur = await foundOr404(db.articles.findOneAndDelete({ _id: id }, { session }).lean<ArticleDoc>(), 'article', id);
    await db.revisions.deleteMany({ articleId: id }, { session });
    emit({ type: 'article.deleted', data: { articleId: id, article: articleSnapshot(cur) } });
  });
  return { id, deleted: true };
}

/**
 * A deleted category's articles become uncategorized in the delete's own transaction, each
 * emitting article.updated. Returns how many.
 */
export async function uncategorizeArticles({ models }: Pick<ArticleStore, 'models'>, ctx: Scope, categoryId: string, session: mongoose.ClientSession, emit: Emit): Promise<number> {
  const db = scoped(models, ctx);
  const filed = await db.articles.find({ categoryId }).session(session).lean<ArticleDoc[]>();
  if (!filed.length) return 0;
  const now = new Date();
  await db.articles.updateMany({ categoryId }, { $set: { categoryId: null, updatedAt: now }, $inc: { rev: 1 } }, { session });
  for (const a of filed) {
    const after = { ...a, categoryId: null, updatedAt: now, rev: (a.rev ?? 0) + 1 };
    emit({ type: 'article.updated', data: { article: articleSnapshot(after), changes: ['categoryId'], previous: { categoryId } } });
  }
  return filed.length;
}
