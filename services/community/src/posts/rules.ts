import type mongoose from 'mongoose';
import slugify from 'slugify';
import type { CommunityAuthor, CreatePostInput, ListPostsQuery, Page, UpdatePostInput } from '@helpdesk/contracts';
import {
  changeSet,
  duplicateKeyOf,
  escapeRegex,
  eventScopeOf,
  findPage,
  newUuid,
  notFound,
  pageOf,
  retrying,
  scoped,
  withOutbox,
  type Emit,
  type RequestContext,
  type Scope,
  type Unscoped,
  type ScopedFilter,
} from '@helpdesk/kit';
import type { AttachmentRules } from '../attachments/rules';
import type { CommunityModels } from '../collections';
import type { TopicRules } from '../topics/rules';
import { mergedCustomFields } from './custom-fields';
import type { PostDoc } from './model';
import { postSnapshot, postView } from './view';

export type PostView = ReturnType<typeof postView>;

const SORTS: Record<ListPostsQuery['sort'], Record<string, 1 | -1>> = {
  recent: { isPinned: -1, createdAt: -1, _id: -1 },
  votes: { isPinned: -1, voteCount: -1, createdAt: -1, _id: -1 },
  comments: { isPinned: -1, commentCount: -1, createdAt: -1, _id: -1 },
};

const slugBaseOf = (title: string) => slugify(title, { lower: true, strict: true }).slice(0, 80).replace(/-+$/, '') || 'post';

interface PostRulesDeps {
  conn: mongoose.Connection;
  models: CommunityModels;
  topics: TopicRules;
  attachments: AttachmentRules;
}

/** The rules of community posts (docs/adr/0017). */
export function postRules({ conn, models, topics, attachments }: PostRulesDeps) {
  /** The slug for a title, unique in the scope: the title's, or with `-2`, `-3`… when taken (read in the transaction; a race re-runs). */
  async function freeSlug(scope: Scope, title: string, session: mongoose.ClientSession): Promise<string> {
    const base = slugBaseOf(title);
    const taken = await scoped(models, scope)
      .posts.find({ slug: { $regex: `^${escapeRegex(base)}(-[0-9]+)?$` } }, { slug: 1 })
      .session(session)
      .lean<Pick<PostDoc, 'slug'>[]>();
    if (!taken.length) return base;
    const numbers = taken.map((p) => (p.slug === base ? 1 : Number(p.slug.slice(base.length + 1))));
    return `${base}-${Math.max(...numbers) + 1}`;
  }

  /** A post the caller may see: 404 when missing, or `members_only` for a publishable key. */
  async function visible(ctx: RequestContext, postId: string, session?: mongoose.ClientSession): Promise<PostDoc> {
    const post = await scoped(models, ctx).posts.findOne({ _id: postId }).session(session ?? null).lean<PostDoc>();
    if (!post || (ctx.keyType === 'publishable' && post.visibility !== 'public')) throw notFound('community post', postId);
    return post;
  }

  return {
    visible,

    /** `sort`: a saved view's order (docs/adr/0035), instead of `q.sort`'s. */
    async list(ctx: RequestContext, q: ListPostsQuery, sort?: Record<string, 1 | -1>): Promise<Page<PostView>> {
      const db = scoped(models, ctx);
      const filter: ScopedFilter<PostDoc> = {};
      if (ctx.keyType === 'publishable') filter.visibility = 'public';
      if (q.status) filter.status = q.status;
      if (q.topic !== undefined) {
        const topic = await db.topics.findOne({ slug: q.topic }, { _id: 1 }).lean();
        if (!topic) return { data: [], pagination: pageOf(q.page, q.pageSize, 0) };
        filter.topicId = topic._id;
      }
      const { rows, pagination } = await findPage(db.posts, filter, q, { sort: sort ?? SORTS[q.sort] });
      return { data: rows.map((p) => postView(p, ctx)), pagination };
    },

    async get(ctx: RequestContext, postId: string): Promise<PostView> {
      return postView(await visible(ctx, postId), ctx);
    },

    async create(ctx: RequestContext, input: CreatePostInput, author: CommunityAuthor): Promise<PostView> {
      const db = scoped(models, ctx);
      const id = newUuid();
      const post = await retrying(
        () =>
          withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
            const topic = await topics.forPost(ctx, input.topicId, session);
            const now = new Date();
            const doc: Unscoped<PostDoc> = {
              _id: id,
              title: input.title,
              slug: await freeSlug(ctx, input.title, session),
              body: input.body ?? '',
              topicId: topic._id,
              status: 'open',
              visibility: input.visibility,
              voteCount: 0,
              commentCount: 0,
              isPinned: false,
              isLocked: false,
              customFields: mergedCustomFields(topic.customFieldConfig, {}, input.customFields ?? {}),
              attachments: await attachments.claim(ctx, session, input.attachments ?? [], { kind: 'post', id, postId: id }),
              author,
              createdAt: now,
              updatedAt: now,
            };
            await db.posts.create([doc], { session });
            await db.topics.updateOne({ _id: topic._id }, { $inc: { postCount: 1 } }, { session });
            emit({ type: 'community.post.created', data: { post: postSnapshot(doc) } });
            return doc;
          }),
        (err) => duplicateKeyOf(err)?.includes('slug') ?? false,
      );
      return postView(post, ctx);
    },

    async update(ctx: RequestContext, postId: string, input: UpdatePostInput): Promise<PostView> {
      const db = scoped(models, ctx);
      let removedFiles: string[] = [];
      const next = await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        removedFiles = [];
        const cur = await visible(ctx, postId, session);
        const { set, previous, change, changes, applyDefined } = changeSet<PostDoc>(cur);
        applyDefined(input, ['title', 'body', 'visibility', 'status']);
        if (input.is_pinned !== undefined) change('isPinned', input.is_pinned);
        if (input.is_locked !== undefined) change('isLocked', input.is_locked);
        if (input.customFields !== undefined) {
          const topic = await topics.forPost(ctx, cur.topicId, session);
          change('customFields', mergedCustomFields(topic.customFieldConfig, cur.customFields, input.customFields));
        }
        if (input.attachments !== undefined) {
          const kept = await attachments.claim(ctx, session, input.attachments, { kind: 'post', id: postId, postId });
          const keptIds = kept.map((a) => a.id);
          removedFiles = await attachments.release(ctx, session, { 'owner.kind': 'post', 'owner.id': postId, _id: { $nin: keptIds } });
          change('attachments', kept);
        }
        if (!changes().length) return cur;
        set.updatedAt = new Date();
        const after = (await db.posts.findOneAndUpdate({ _id: postId }, { $set: set }, { session, returnDocument: 'after' }).lean<PostDoc>())!;
        const post = postSnapshot(after);
        emit({ type: 'community.post.updated', data: { post, changes: changes().map(snakeCaseOf), previous: snakeKeys(previous) } });
        if (set.status !== undefined) emit({ type: 'community.post.status_changed', data: { post, from: cur.status, to: after.status } });
        return after;
      });
      await attachments.deleteFiles(removedFiles);
      return postView(next, ctx);
    },

    /** The post, its comments and votes, and every attachment file of the post and its comments. */
    async remove(ctx: RequestContext, postId: string): Promise<{ id: string; deleted: true }> {
      const db = scoped(models, ctx);
      let files: string[] = [];
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await db.posts.findOneAndDelete({ _id: postId }, { session }).lean<PostDoc>();
        if (!cur) throw notFound('community post', postId);
        await db.comments.deleteMany({ postId }, { session });
        await db.votes.deleteMany({ postId }, { session });
        await db.topics.updateOne({ _id: cur.topicId }, { $inc: { postCount: -1 } }, { session });
        files = await attachments.release(ctx, session, { 'owner.postId': postId });
        emit({ type: 'community.post.deleted', data: { post: postSnapshot(cur) } });
      });
      await attachments.deleteFiles(files);
      return { id: postId, deleted: true };
    },

    /** The post after a change made elsewhere in the caller's transaction (a comment, an official answer). */
    async changeStatus(
      scope: Scope,
      session: mongoose.ClientSession,
      emit: Emit,
      cur: PostDoc,
      to: PostDoc['status'],
    ): Promise<void> {
      if (cur.status === to) return;
      const after = (await scoped(models, scope)
        .posts.findOneAndUpdate({ _id: cur._id }, { $set: { status: to, updatedAt: new Date() } }, { session, returnDocument: 'after' })
        .lean<PostDoc>())!;
      const post = postSnapshot(after);
      emit({ type: 'community.post.updated', data: { post, changes: ['status'], previous: { status: cur.status } } });
      emit({ type: 'community.post.status_changed', data: { post, from: cur.status, to } });
    },
  };
}
export type PostRules = ReturnType<typeof postRules>;

/** Stored names → the public JSON's (isPinned → is_pinned, customFields → custom_fields) for the `changes` of events. */
const snakeCaseOf = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const snakeKeys = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [snakeCaseOf(k), v]));
