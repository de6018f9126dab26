import { onEvery, type Subscription } from '@helpdesk/kit';
import type { WorkspaceRules } from '../rules';

/**
 * Everything the workspace service reacts to, in one list (queue `helpdesk.workspace`): every event
 * of every service becomes an audit log entry (docs/adr/0023). Members' `level` and `xp` will follow
 * the game service's events once it exists.
 */
export const consumers = ({ auditLog }: WorkspaceRules): Subscription[] => [onEvery('#', (e) => auditLog.record(e))];
