import type { ServiceDeps, Subscription } from '@helpdesk/kit';
import type { WorkspaceModels } from '../collections';
import type { WorkspaceRules } from '../rules';
import { auditLogSubscription } from './audit-log';
import { gameProgress } from './game';

/**
 * Everything the workspace service reacts to, in one list (queue `helpdesk.workspace`): every event
 * of every service becomes an audit log entry (docs/adr/0023); members' `level` and `xp` follow the
 * game service's `game.player.progressed`.
 */
export const consumers = ({ auditLog }: WorkspaceRules, deps: ServiceDeps<WorkspaceModels>): Subscription[] => [auditLogSubscription(auditLog), gameProgress(deps)];
