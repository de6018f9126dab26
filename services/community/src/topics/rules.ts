import type mongoose from 'mongoose';
import slugify from 'slugify';
import type { CommunityFieldConfig, CommunityFieldConfigInput, CommunityTopicSnapshot, CreateTopicInput, UpdateTopicInput } from '@helpdesk/contracts';
import {
  ApiError,
  changeSet,
  conflict,
  conflictOnDuplicate,
  eventScopeOf,
  foundOr404,
  newUuid,
  parameterInvalid,
  scoped,
  withOutbox,
  type RequestContext,
  type Scope,
  type Unscoped,
} from '@helpdesk/kit';
import type { CommunityModels } from '../collections';
import type { TopicDoc } from './model';
import { topicView } from './view';

/** A topic's own field definitions (docs/adr/0017): ids kept or generated, `options` only and always for `select`. */
export function fieldConfigOf(input: CommunityFieldConfigInput[], param = 'customFieldConfig'): CommunityFieldConfig[] {
  const seen = new Set<string>();
  return input.map((f, i) => {
    const fieldId = f.fieldId ?? newUuid();
    if (seen.has(fieldId)) throw parameterInvalid(`${param}.${i}.fieldId`, `The field id '${fieldId}' appears twice.`);
    seen.add(fieldId);
    const options = [...new Set(f.options ?? [])];
    if (f.type === 'select' && options.length === 0) throw parameterInvalid(`${param}.${i}.options`, 'A select field needs at least one option.');
    if (f.type !== 'select' && options.length > 0) throw parameterInvalid(`${param}.${i}.options`, `Only select fields have options, not ${f.type} fields.`);
    return { fieldId, name: f.name, type: f.type, required: f.required, options };
  });
}

const slugOf = (name: string) => slugify(name, { lower: true, strict: true }).slice(0, 100) || 'topic';

/** The rules of community topics (docs/adr/0017). */
export function topicRules({ conn, models }: { conn: mongoose.Connection; models: CommunityModels }) {
  return {
    async list(ctx: RequestContext): Promise<CommunityTopicSnapshot[]> {
      const rows = await scoped(models, ctx).topics.find().sort({ name: 1, _id: 1 }).lean<TopicDoc[]>();
      return rows.map(topicView);
    },

    /** The topic a post is written in: 404 naming `param` when the team and partition have none with that id. */
    async forPost(scope: Scope, topicId: string, session: mongoose.ClientSession, param = 'topicId'): Promise<TopicDoc> {
      const topic = await scoped(models, scope).topics.findOne({ _id: topicId }).session(session).lean<TopicDoc>();
      if (!topic) throw new ApiError('resource_not_found', `No such community topic: '${topicId}'.`, param);
      return topic;
    },

    async create(ctx: RequestContext, input: CreateTopicInput): Promise<CommunityTopicSnapshot> {
      const db = scoped(models, ctx);
      const now = new Date();
      const doc: Unscoped<TopicDoc> = {
        _id: newUuid(),
        name: input.name,
        slug: slugOf(input.name),
        description: input.description ?? null,
        customFieldConfig: fieldConfigOf(input.customFieldConfig ?? []),
        postCount: 0,
        createdAt: now,
        updatedAt: now,
      };
      return conflictOnDuplicate(
        () =>
          withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
            await db.topics.create([doc], { session });
            const topic = topicView(doc);
            emit({ type: 'community.topic.created', data: { topic } });
            return topic;
          }),
        { slug: { param: 'name', message: `A community topic with the slug '${doc.slug}' already exists.` } },
      );
    },

    async update(ctx: RequestContext, topicId: string, input: UpdateTopicInput): Promise<CommunityTopicSnapshot> {
      const db = scoped(models, ctx);
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await foundOr404(db.topics.findOne({ _id: topicId }).session(session).lean<TopicDoc>(), 'community topic', topicId);
        const { set, previous, change, changes } = changeSet<TopicDoc>(cur);
        if (input.name !== undefined) change('name', input.name);
        if (input.description !== undefined) change('description', input.description);
        if (input.customFieldConfig !== undefined) change('customFieldConfig', fieldConfigOf(input.customFieldConfig));
        if (!changes().length) return topicView(cur);
        set.updatedAt = new Date();
        const next = await db.topics.findOneAndUpdate({ _id: topicId }, { $set: set }, { session, returnDocument: 'after' }).lean<TopicDoc>();
        const topic = topicView(next!);
        emit({ type: 'community.topic.updated', data: { topic, changes: changes(), previous } });
        return topic;
      });
    },

    /** Refused (409) while the topic has posts; creating a post writes the topic too, so the two cannot interleave. */
    async remove(ctx: RequestContext, topicId: string): Promise<{ id: string; deleted: true }> {
      const db = scoped(models, ctx);
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await foundOr404(db.topics.findOneAndDelete({ _id: topicId }, { session }).lean<TopicDoc>(), 'community topic', topicId);
        const posts = await db.posts.countDocuments({ topicId }).session(session);
        if (posts > 0) throw conflict(`The community topic '${cur.slug}' has ${posts} post${posts === 1 ? '' : 's'}; delete them before the topic.`);
        emit({ type: 'community.topic.deleted', data: { topic: topicView(cur) } });
      });
      return { id: topicId, deleted: true };
    },
  };
}
export type TopicRules = ReturnType<typeof topicRules>;
