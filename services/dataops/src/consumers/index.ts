import type { Subscription } from '@helpdesk/kit';

/** dataops reacts to no event: it owns no copy of another service's records (docs/adr/0034). */
export const consumers = (): Subscription[] => [];
