import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { Partition } from '@helpdesk/contracts';

/** A team's AI settings per partition (docs/adr/0029); absent means the defaults. `_id` is `<mode>:<teamId>`. */
export interface AiSettingsDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  includeInternalNotes: boolean;
  updatedAt: Date;
}

const settingsSchema = new mongoose.Schema<AiSettingsDoc>(
  {
    _id: { type: String, required: true },
    includeInternalNotes: { type: Boolean, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'ai_settings', versionKey: false, strict: 'throw' },
);
settingsSchema.plugin(tenancyPlugin);

/**
 * Ticketing's projection of knowledge articles, fed by `article.*` events (docs/adr/0029): what
 * suggest-reply searches, with no call to the knowledge service. `rev` orders updates; `deleted` is a tombstone.
 */
export interface ArticleRefDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  title: string;
  content: string;
  tags: string[];
  status: string;
  rev: number;
  deleted: boolean;
}

const articleSchema = new mongoose.Schema<ArticleRefDoc>(
  {
    _id: { type: String, required: true },
    title: { type: String, required: true },
    content: { type: String, default: '' },
    tags: { type: [String], default: [] },
    status: { type: String, required: true },
    rev: { type: Number, required: true },
    deleted: { type: Boolean, required: true, default: false },
  },
  { collection: 'article_refs', versionKey: false, strict: 'throw' },
);
articleSchema.plugin(tenancyPlugin);
articleSchema.index({ teamId: 1, mode: 1, status: 1, deleted: 1 });

export type AiSettingsModel = mongoose.Model<AiSettingsDoc>;
export type ArticleRefModel = mongoose.Model<ArticleRefDoc>;

export const aiSettingsModel = (conn: mongoose.Connection): AiSettingsModel =>
  (conn.models.AiSettings as AiSettingsModel | undefined) ?? conn.model<AiSettingsDoc>('AiSettings', settingsSchema);
export const articleRefModel = (conn: mongoose.Connection): ArticleRefModel =>
  (conn.models.ArticleRef as ArticleRefModel | undefined) ?? conn.model<ArticleRefDoc>('ArticleRef', articleSchema);
