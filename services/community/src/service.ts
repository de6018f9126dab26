import { COMMUNITY, COMMUNITY_SEARCH_INTERNAL } from '@helpdesk/contracts';
import { defineService } from '@helpdesk/kit';
import { attachmentHandlers } from './attachments/handlers';
import { communityModels } from './collections';
import { commentHandlers } from './posts/comments/handlers';
import { postHandlers } from './posts/handlers';
import { voteHandlers } from './posts/votes/handlers';
import { postSearchHandlers } from './search/handlers';
import { communityRules, type CommunityConfig } from './rules';
import { topicHandlers } from './topics/handlers';

/** The community service: topics, posts, comments, votes and image attachments (docs/adr/0017, 0018). It consumes no events. */
export const communityService = (config: CommunityConfig) =>
  defineService({
    name: 'community',
    operations: { ...COMMUNITY, ...COMMUNITY_SEARCH_INTERNAL },
    models: communityModels,
    rules: (deps) => communityRules(deps, config),
    handlers: (rules) => ({
      ...topicHandlers(rules),
      ...postHandlers(rules),
      ...commentHandlers(rules),
      ...voteHandlers(rules),
      ...attachmentHandlers(rules),
      ...postSearchHandlers(rules),
    }),
  });
