import { systemClock as systemKitClock, type Clock as KitClock } from '@helpdesk/kit';

/** What "now" is for the game's time rules: a reading of kit's Clock, the system's or a test's. */
export type Clock = KitClock['now'];
export const systemClock: Clock = systemKitClock().now;
