import type { ArticleRevisionView, Page } from '@helpdesk/contracts';
import { findPage, scoped, type RequestContext } from '@helpdesk/kit';
import type { KnowledgeModels } from '../../collections';
import { findArticleOr404 } from '../read';
import type { RevisionDoc } from './model';
import { revisionView } from './view';

/** An article's published revisions, newest first (the article's publishing writes them: ../publish.ts). */
export async function listArticleRevisions(
  { models }: { models: KnowledgeModels },
  ctx: RequestContext,
  articleId: string,
  q: { page: number; pageSize: number },
): Promise<Page<ArticleRevisionView>> {
  await findArticleOr404({ models }, ctx, articleId);
  const { rows, pagination } = await findPage<RevisionDoc>(scoped(models, ctx).revisions, { articleId }, q, { sort: { revision: -1 } });
  return { data: rows.map(revisionView), pagination };
}
