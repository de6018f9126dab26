import { COMMUNITY_ATTACHMENTS } from './attachments';
import { COMMUNITY_COMMENTS } from './comments';
import { COMMUNITY_POSTS } from './posts';
import { COMMUNITY_TOPICS } from './topics';
import { COMMUNITY_VOTES } from './votes';

/** The community service's operations, one file per resource (docs/adr/0017, 0018). */
export { COMMUNITY_LIMITS, UPLOAD_BODY_LIMIT } from './common';
export * from './topics';
export * from './posts';
export * from './comments';
export * from './votes';
export * from './attachments';
export * from './dataops';

export const COMMUNITY = { ...COMMUNITY_TOPICS, ...COMMUNITY_POSTS, ...COMMUNITY_COMMENTS, ...COMMUNITY_VOTES, ...COMMUNITY_ATTACHMENTS };
