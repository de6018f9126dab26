import type mongoose from 'mongoose';
import type { CommunityAuthor } from '@helpdesk/contracts';
import { duplicateKeyOf, eventScopeOf, newUuid, scoped, withOutbox, type RequestContext } from '@helpdesk/kit';
import { authorKey } from '../../authors';
import type { CommunityModels } from '../../collections';
import type { PostDoc } from '../model';
import type { PostRules } from '../rules';

export interface VoteAnswer {
  post_id: string;
  voter: CommunityAuthor;
  voted: boolean;
  vote_count: number;
}

/**
 * One vote per voter per post (a unique index on post and voter), and `vote_count` moved by `$inc` in
 * the same transaction as the vote: exact under any number of concurrent requests (docs/adr/0017).
 */
export function voteRules({ conn, models, posts }: { conn: mongoose.Connection; models: CommunityModels; posts: PostRules }) {
  const countOf = async (ctx: RequestContext, postId: string) => (await posts.visible(ctx, postId)).voteCount;

  return {
    async add(ctx: RequestContext, postId: string, voter: CommunityAuthor): Promise<VoteAnswer> {
      const db = scoped(models, ctx);
      try {
        return await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
          await posts.visible(ctx, postId, session);
          await db.votes.create([{ _id: newUuid(), postId, voterKey: authorKey(voter), voter, createdAt: new Date() }], { session });
          const after = (await db.posts.findOneAndUpdate({ _id: postId }, { $inc: { voteCount: 1 } }, { session, returnDocument: 'after' }).lean<PostDoc>())!;
          emit({ type: 'community.vote.added', data: { post_id: postId, voter, vote_count: after.voteCount } });
          return { post_id: postId, voter, voted: true, vote_count: after.voteCount };
        });
      } catch (err) {
        // Voted already: nothing changes.
        if (!duplicateKeyOf(err)?.includes('voterKey')) throw err;
        return { post_id: postId, voter, voted: true, vote_count: await countOf(ctx, postId) };
      }
    },

    async remove(ctx: RequestContext, postId: string, voter: CommunityAuthor): Promise<VoteAnswer> {
      const db = scoped(models, ctx);
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const post = await posts.visible(ctx, postId, session);
        const removed = await db.votes.findOneAndDelete({ postId, voterKey: authorKey(voter) }, { session }).lean();
        if (!removed) return { post_id: postId, voter, voted: false, vote_count: post.voteCount };
        const after = (await db.posts.findOneAndUpdate({ _id: postId }, { $inc: { voteCount: -1 } }, { session, returnDocument: 'after' }).lean<PostDoc>())!;
        emit({ type: 'community.vote.removed', data: { post_id: postId, voter, vote_count: after.voteCount } });
        return { post_id: postId, voter, voted: false, vote_count: after.voteCount };
      });
    },
  };
}
export type VoteRules = ReturnType<typeof voteRules>;
