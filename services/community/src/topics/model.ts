import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { CommunityFieldConfig, Partition } from '@helpdesk/contracts';

/** A community topic; its field definitions live in `customFieldConfig` (docs/adr/0017). */
export interface TopicDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  name: string;
  slug: string;
  description: string | null;
  customFieldConfig: CommunityFieldConfig[];
  /** Kept exact with `$inc` in the transaction that creates or deletes a post. */
  postCount: number;
  createdAt: Date;
  updatedAt: Date;
}

const fieldConfigSchema = new mongoose.Schema<CommunityFieldConfig>(
  {
    fieldId: { type: String, required: true },
    name: { type: String, required: true },
    type: { type: String, required: true },
    required: { type: Boolean, required: true },
    options: { type: [String], default: [] },
  },
  { _id: false },
);

const topicSchema = new mongoose.Schema<TopicDoc>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    slug: { type: String, required: true },
    description: { type: String, default: null },
    customFieldConfig: { type: [fieldConfigSchema], default: [] },
    postCount: { type: Number, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'topics', versionKey: false, strict: 'throw' },
);
topicSchema.plugin(tenancyPlugin);
topicSchema.index({ teamId: 1, mode: 1, slug: 1 }, { unique: true });

export type TopicModel = mongoose.Model<TopicDoc>;
export const topicModel = (conn: mongoose.Connection): TopicModel =>
  (conn.models.CommunityTopic as TopicModel | undefined) ?? conn.model<TopicDoc>('CommunityTopic', topicSchema);
