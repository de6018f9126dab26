import type { ServiceDeps } from '@helpdesk/kit';
import type { DataopsModels } from './collections';
import { ownerClients } from './owners';

/** The owning services dataops fans out to (each one's base URL). */
export interface DataopsConfig {
  ticketingUrl: string;
  customersUrl: string;
  knowledgeUrl: string;
  communityUrl: string;
  workspaceUrl: string;
}

/** Every resource's rules, wired once; handlers share them. */
export function dataopsRules(_deps: ServiceDeps<DataopsModels>, config: DataopsConfig) {
  const owners = ownerClients(config);
  return { config, owners };
}
export type DataopsRules = ReturnType<typeof dataopsRules>;
