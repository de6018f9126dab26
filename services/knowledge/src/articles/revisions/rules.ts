import type { ArticleRevisionView, Page } from '@helpdesk/contracts';
import { findPage, scoped, type RequestContext } from '@helpdesk/kit';
import type { ArticleRules } from '../rules';
import type { KnowledgeModels } from '../../models';
import type { RevisionDoc } from './model';
import { revisionView } from './view';

/** An article's published revisions, newest first (they are written by the article rules). */
export function revisionRules({ models, articles }: { models: KnowledgeModels; articles: ArticleRules }) {
  return {
    async list(ctx: RequestContext, articleId: string, q: { page: number; pageSize: number }): Promise<Page<ArticleRevisionView>> {
      await articles.findOr404(ctx, articleId);
      const { rows, pagination } = await findPage<RevisionDoc>(scoped(models, ctx).revisions, { articleId }, q, { sort: { revision: -1 } });
      return { data: rows.map(revisionView), pagination };
    },
  };
}
