import type mongoose from 'mongoose';
import { actorOf, parameterInvalid, scoped, type RequestContext, type Scope, type Unscoped } from '@helpdesk/kit';
import type { ArticleDoc } from './model';
import type { ArticleCategories, ArticleStore } from './port';

/** A category id given on a write must be a category of the team and partition (linked in the same transaction). */
export async function checkCategory(
  { categories }: { categories: Pick<ArticleCategories, 'link'> },
  scope: Scope,
  categoryId: string | null | undefined,
  session: mongoose.ClientSession,
): Promise<void> {
  if (categoryId && !(await categories.link(scope, categoryId, session))) {
    throw parameterInvalid('categoryId', `Invalid categoryId: no category '${categoryId}' in this team and partition.`);
  }
}

/** Keeps the article's current title and content as its next published revision; returns its number. */
export async function keepRevision({ models }: Pick<ArticleStore, 'models'>, ctx: RequestContext, a: Unscoped<ArticleDoc>, session: mongoose.ClientSession): Promise<number> {
  const revision = a.revisionCount;
  await scoped(models, ctx).revisions.create(
    [
      {
        _id: `${a._id}:${revision}`,
        articleId: a._id,
        revision,
        title: a.title,
        content: a.content,
        categoryId: a.categoryId,
        isPublic: a.isPublic,
        tags: a.tags,
        publishedAt: a.publishedAt ?? a.updatedAt,
        publishedBy: actorOf(ctx),
      },
    ],
    { session },
  );
  return revision;
}
