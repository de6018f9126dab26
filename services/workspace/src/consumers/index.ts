import type { Subscription } from '@helpdesk/kit';

/**
 * Everything the workspace service reacts to, in one list (queue `helpdesk.workspace`). Nothing yet:
 * members' `level` and `xp` will follow the game service's events once it exists.
 */
export const consumers = (): Subscription[] => [];
