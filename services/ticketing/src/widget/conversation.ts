import { createHash, randomBytes } from 'node:crypto';
import { ApiError, scoped, type RequestContext } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';

export const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');
export const newConversationToken = () => `wct_${randomBytes(32).toString('base64url')}`;

/** Another visitor's token, or none of this team's: the same answer, which confirms nothing. */
const wrongToken = () =>
  new ApiError('resource_not_found', 'No conversation with this id opens with this conversation token.', 'conversationToken');

/** The conversation its token opens, or a 404 that confirms nothing. */
export async function openConversation({ models }: { models: TicketingModels }, ctx: RequestContext, conversationId: string, token: string) {
  const c = await scoped(models, ctx).widgetConversations.findOne({ _id: conversationId, tokenHash: hashOf(token) }).lean();
  if (!c) throw wrongToken();
  return c;
}
