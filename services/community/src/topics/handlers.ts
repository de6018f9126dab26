import { COMMUNITY } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { CommunityRules } from '../rules';

/** `/teams/{teamId}/community/topics…`: reads `view_community` (publishable keys too), writes `manage_community`. */
export const topicHandlers = ({ topics }: CommunityRules) =>
  handlersFor(COMMUNITY)({
    listCommunityTopics: ({ ctx }) => topics.list(ctx),
    createCommunityTopic: ({ ctx, body }) => topics.create(ctx, body),
    updateCommunityTopic: ({ ctx, params, body }) => topics.update(ctx, params.topicId, body),
    deleteCommunityTopic: ({ ctx, params }) => topics.remove(ctx, params.topicId),
  });
