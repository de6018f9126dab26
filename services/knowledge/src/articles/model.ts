import mongoose from 'mongoose';
import { ARTICLE_STATUSES, type Partition } from '@helpdesk/contracts';
import { searchTokensOf, tenancyPlugin } from '@helpdesk/kit';

/** A stored article. `_id` is the public `art_…` id; `revisionCount`, `publishedAt` and `rev` are internal. */
export interface ArticleDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  title: string;
  content: string;
  categoryId: string | null;
  status: (typeof ARTICLE_STATUSES)[number];
  isPublic: boolean;
  tags: string[];
  metadata: Record<string, unknown>;
  /** `{fieldId: value}`, checked against the team's definitions (docs/adr/0022). */
  customFields?: Record<string, unknown>;
  /** Public reads (publishable keys, the help center); written in batches by ./view-counter.ts. */
  viewCount: number;
  /** Ticket messages that cite the article (../consumers/tickets.ts). */
  useCount: number;
  /** Published revisions kept (./revisions). */
  revisionCount: number;
  publishedAt: Date | null;
  /** Bumped by every change that publishes an article event (projections order by it). */
  rev: number;
  /** The words of title and content, and of the title (articleSearchTokens), in the multikey index GET /search looks words up in (docs/adr/0034); absent on older articles until their first search. */
  searchTokens?: string[];
  titleTokens?: string[];
  createdAt: Date;
  updatedAt: Date;
}

/** An article's search words (docs/adr/0034), stored by every write of its title or content. */
export function articleSearchTokens(a: Pick<ArticleDoc, 'title' | 'content'>): { searchTokens: string[]; titleTokens: string[] } {
  return { searchTokens: searchTokensOf(a.title, a.content), titleTokens: searchTokensOf(a.title) };
}

const articleSchema = new mongoose.Schema<ArticleDoc>(
  {
    _id: { type: String, required: true },
    title: { type: String, required: true },
    content: { type: String, default: '' },
    categoryId: { type: String, default: null },
    status: { type: String, enum: ARTICLE_STATUSES, required: true },
    isPublic: { type: Boolean, required: true },
    tags: { type: [String], default: [] },
    metadata: { type: mongoose.Schema.Types.Mixed, default: () => ({}) },
    customFields: { type: mongoose.Schema.Types.Mixed, default: () => ({}) },
    viewCount: { type: Number, required: true, default: 0 },
    useCount: { type: Number, required: true, default: 0 },
    revisionCount: { type: Number, required: true, default: 0 },
    publishedAt: { type: Date, default: null },
    rev: { type: Number, required: true, default: 0 },
    searchTokens: { type: [String], default: undefined },
    titleTokens: { type: [String], default: undefined },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'articles', versionKey: false, minimize: false, strict: 'throw' },
);
articleSchema.plugin(tenancyPlugin);
articleSchema.index({ teamId: 1, mode: 1, createdAt: -1, _id: -1 });
// The incremental export reads changes in (updatedAt, _id) order after a cursor (docs/adr/0036).
articleSchema.index({ teamId: 1, mode: 1, updatedAt: 1, _id: 1 });
articleSchema.index({ teamId: 1, mode: 1, categoryId: 1 });
// GET /search looks a word up here (multikey: one key per word), docs/adr/0034.
articleSchema.index({ teamId: 1, mode: 1, searchTokens: 1 });
articleSchema.index({ teamId: 1, mode: 1, status: 1, isPublic: 1 });

export type ArticleModel = mongoose.Model<ArticleDoc>;

export function articleModel(conn: mongoose.Connection): ArticleModel {
  return (conn.models.Article as ArticleModel | undefined) ?? conn.model<ArticleDoc>('Article', articleSchema);
}
