import { teamAndPartition } from '@helpdesk/kit';
import type mongoose from 'mongoose';
import { attachmentModel } from './attachments/model';
import { commentModel } from './posts/comments/model';
import { postModel } from './posts/model';
import { voteModel } from './posts/votes/model';
import { topicModel } from './topics/model';

/**
 * Every collection of the service, declared once with its kind (kit's data layer, docs/adr/0065);
 * kit builds their indexes at start-up. Reached only through `scoped(models, scope)`.
 */
export const communityModels = (conn: mongoose.Connection) => ({
  topics: teamAndPartition(topicModel(conn)),
  posts: teamAndPartition(postModel(conn)),
  comments: teamAndPartition(commentModel(conn)),
  votes: teamAndPartition(voteModel(conn)),
  attachments: teamAndPartition(attachmentModel(conn)),
});
export type CommunityModels = ReturnType<typeof communityModels>;
