import type mongoose from 'mongoose';
import type { CommunityAuthor, CommunityCommentSnapshot, CreateCommentInput, Page, UpdateCommentInput } from '@helpdesk/contracts';
import { conflict, eventScopeOf, findPage, foundOr404, newUuid, parameterInvalid, scoped, withOutbox, type RequestContext, type Unscoped } from '@helpdesk/kit';
import type { AttachmentRules } from '../../attachments/rules';
import { isStaff } from '../../authors';
import type { CommunityModels } from '../../collections';
import type { PostRules } from '../rules';
import type { CommentDoc } from './model';
import { commentView } from './view';

interface CommentRulesDeps {
  conn: mongoose.Connection;
  models: CommunityModels;
  posts: PostRules;
  attachments: AttachmentRules;
}

/** The rules of a post's comments and its official answer (docs/adr/0017). */
export function commentRules({ conn, models, posts, attachments }: CommentRulesDeps) {
  return {
    /** Oldest first; the post must be one the caller may see. */
    async list(ctx: RequestContext, postId: string, q: { page: number; pageSize: number }): Promise<Page<CommunityCommentSnapshot>> {
      await posts.visible(ctx, postId);
      const { rows, pagination } = await findPage(scoped(models, ctx).comments, { postId }, q, { sort: { createdAt: 1, _id: 1 } });
      return { data: rows.map(commentView), pagination };
    },

    /** Refused while the post is locked; the comment, its attachments and the post's `comment_count` move together. */
    async create(ctx: RequestContext, postId: string, input: CreateCommentInput, author: CommunityAuthor): Promise<CommunityCommentSnapshot> {
      const db = scoped(models, ctx);
      const id = newUuid();
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const post = await posts.visible(ctx, postId, session);
        if (post.isLocked) throw conflict('The post is locked: comments are disabled until it is unlocked.', 'is_locked');
        const now = new Date();
        const doc: Unscoped<CommentDoc> = {
          _id: id,
          postId,
          body: input.body,
          author,
          attachments: await attachments.claim(ctx, session, input.attachments ?? [], { kind: 'comment', id, postId }),
          isOfficialAnswer: false,
          createdAt: now,
          updatedAt: now,
        };
        await db.comments.create([doc], { session });
        await db.posts.updateOne({ _id: postId }, { $inc: { commentCount: 1 } }, { session });
        const comment = commentView(doc);
        emit({ type: 'community.comment.created', data: { comment } });
        return comment;
      });
    },

    /**
     * Marks a staff comment as the official answer (the post becomes `officially_answered`, an earlier
     * answer is unmarked), or unmarks it (the post goes back to `open`).
     */
    async update(ctx: RequestContext, postId: string, commentId: string, input: UpdateCommentInput): Promise<CommunityCommentSnapshot> {
      const db = scoped(models, ctx);
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const post = await posts.visible(ctx, postId, session);
        const cur = await foundOr404(db.comments.findOne({ _id: commentId, postId }).session(session).lean<CommentDoc>(), 'community comment', commentId);
        if (cur.isOfficialAnswer === input.is_official_answer) return commentView(cur);
        if (input.is_official_answer && !isStaff(cur.author)) {
          throw parameterInvalid('is_official_answer', 'Only a staff comment (written by a member or a key, not for a customer) can be the official answer.');
        }
        const mark = async (c: CommentDoc, value: boolean) => {
          const after = (await db.comments
            .findOneAndUpdate({ _id: c._id }, { $set: { isOfficialAnswer: value, updatedAt: new Date() } }, { session, returnDocument: 'after' })
            .lean<CommentDoc>())!;
          const comment = commentView(after);
          emit({ type: 'community.comment.updated', data: { comment, changes: ['is_official_answer'], previous: { is_official_answer: !value } } });
          return comment;
        };
        if (input.is_official_answer) {
          const earlier = await db.comments.find({ postId, isOfficialAnswer: true }).session(session).lean<CommentDoc[]>();
          for (const c of earlier) await mark(c, false);
        }
        const comment = await mark(cur, input.is_official_answer);
        await posts.changeStatus(ctx, session, emit, post, input.is_official_answer ? 'officially_answered' : post.status === 'officially_answered' ? 'open' : post.status);
        return comment;
      });
    },
  };
}
export type CommentRules = ReturnType<typeof commentRules>;
