import type mongoose from 'mongoose';
import { attachmentModel } from './attachments/model';
import { commentModel } from './posts/comments/model';
import { postModel } from './posts/model';
import { voteModel } from './posts/votes/model';
import { topicModel } from './topics/model';

/** Every model of the service on its connection (kit builds their indexes at start-up). */
export const communityModels = (conn: mongoose.Connection) => ({
  topics: topicModel(conn),
  posts: postModel(conn),
  comments: commentModel(conn),
  votes: voteModel(conn),
  attachments: attachmentModel(conn),
});
export type CommunityModels = ReturnType<typeof communityModels>;
