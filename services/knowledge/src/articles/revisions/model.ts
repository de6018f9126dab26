import mongoose from 'mongoose';
import type { Actor, Partition } from '@helpdesk/contracts';
import { tenancyPlugin } from '@helpdesk/kit';

/** One published version of an article, kept as it was published. `_id` is `<articleId>:<revision>`. */
export interface RevisionDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  articleId: string;
  revision: number;
  title: string;
  content: string;
  categoryId: string | null;
  isPublic: boolean;
  tags: string[];
  publishedAt: Date;
  publishedBy: Actor;
}

const revisionSchema = new mongoose.Schema<RevisionDoc>(
  {
    _id: { type: String, required: true },
    articleId: { type: String, required: true },
    revision: { type: Number, required: true },
    title: { type: String, required: true },
    content: { type: String, default: '' },
    categoryId: { type: String, default: null },
    isPublic: { type: Boolean, required: true },
    tags: { type: [String], default: [] },
    publishedAt: { type: Date, required: true },
    publishedBy: { type: { type: String, required: true }, id: { type: String, default: null } },
  },
  { collection: 'article_revisions', versionKey: false, minimize: false, strict: 'throw' },
);
revisionSchema.plugin(tenancyPlugin);
revisionSchema.index({ teamId: 1, mode: 1, articleId: 1, revision: -1 }, { unique: true });

export type RevisionModel = mongoose.Model<RevisionDoc>;

export function revisionModel(conn: mongoose.Connection): RevisionModel {
  return (conn.models.ArticleRevision as RevisionModel | undefined) ?? conn.model<RevisionDoc>('ArticleRevision', revisionSchema);
}
