import { CUSTOMERS_INTERNAL } from '@helpdesk/contracts';
import { internalClient, type ServiceDeps } from '@helpdesk/kit';
import { attachmentRules } from './attachments/rules';
import { authorRules } from './authors';
import type { CommunityModels } from './collections';
import { commentRules } from './posts/comments/rules';
import { postRules } from './posts/rules';
import { voteRules } from './posts/votes/rules';
import type { AttachmentStorage } from './storage';
import { topicRules } from './topics/rules';

export interface CommunityConfig {
  /** The customers service's base URL (CUSTOMERS_URL): asked about a customer a secret key writes for. */
  customersUrl: string;
  /** Where attachment bytes live (a folder under DATA_DIR, or S3-compatible storage). */
  storage: AttachmentStorage;
}

/** Every resource's rules, wired once; the handlers share them. */
export function communityRules({ conn, models, logger }: ServiceDeps<CommunityModels>, config: CommunityConfig) {
  const authors = authorRules(internalClient(CUSTOMERS_INTERNAL, config.customersUrl, { service: 'customers' }));
  const topics = topicRules({ conn, models });
  const attachments = attachmentRules({ conn, models, storage: config.storage, logger });
  const posts = postRules({ conn, models, topics, attachments });
  const comments = commentRules({ conn, models, posts, attachments });
  const votes = voteRules({ conn, models, posts });
  return { authors, topics, attachments, posts, comments, votes };
}
export type CommunityRules = ReturnType<typeof communityRules>;
