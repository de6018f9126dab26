/** What "now" is for the game's time rules: the system clock, or a test's. */
export type Clock = () => Date;
export const systemClock: Clock = () => new Date();
