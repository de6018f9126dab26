import type { CommunityTopicSnapshot } from '@helpdesk/contracts';
import type { Unscoped } from '@helpdesk/kit';
import type { TopicDoc } from './model';

/** The spec's Community topic (and the event snapshot). */
export function topicView(t: Unscoped<TopicDoc>): CommunityTopicSnapshot {
  return {
    id: t._id,
    name: t.name,
    slug: t.slug,
    description: t.description,
    customFieldConfig: t.customFieldConfig.map((f) => ({ fieldId: f.fieldId, name: f.name, type: f.type, required: f.required, options: [...(f.options ?? [])] })),
    postCount: t.postCount,
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}
