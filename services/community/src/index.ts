import { startService, type RunningService, type ServiceOptions } from '@helpdesk/kit';
import type { CommunityConfig, CommunityRules } from './rules';
import type { AttachmentStorage } from './storage';
import { communityService } from './service';

export { communityService } from './service';
export type { CommunityConfig, CommunityRules } from './rules';
export { attachmentStorage, folderStorage, s3Storage, type AttachmentStorage } from './storage';

export type CommunityOptions = ServiceOptions & CommunityConfig;
/** The running service and its attachment storage (tests look into it). */
export type RunningCommunity = RunningService<CommunityRules> & { storage: AttachmentStorage };

/** Connects (database `community` by default), builds indexes, starts the outbox relay, and listens. */
export async function startCommunity(opts: CommunityOptions): Promise<RunningCommunity> {
  const running = await startService(communityService({ customersUrl: opts.customersUrl, storage: opts.storage }), opts);
  // The storage's connections close with the service.
  return {
    ...running,
    storage: opts.storage,
    stop: async () => {
      await running.stop();
      await opts.storage.close();
    },
  };
}
