import { startService, type RunningService, type ServiceOptions } from '@helpdesk/kit';
import type { DataopsConfig, DataopsRules } from './rules';
import { dataopsService } from './service';

export { dataopsService } from './service';
export type { DataopsConfig, DataopsRules } from './rules';

export type DataopsOptions = ServiceOptions & DataopsConfig;
export type RunningDataops = RunningService<DataopsRules>;

/** Connects (database `dataops` by default: its own import logs and export cursors only), and listens. */
export function startDataops(opts: DataopsOptions): Promise<RunningDataops> {
  const { ticketingUrl, customersUrl, knowledgeUrl, communityUrl, workspaceUrl } = opts;
  return startService(dataopsService({ ticketingUrl, customersUrl, knowledgeUrl, communityUrl, workspaceUrl }), opts);
}
