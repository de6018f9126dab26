import { startService, systemClock, type Clock, type RunningService, type ServiceOptions } from '@helpdesk/kit';
import type { GameRules } from './rules';
import { gameService } from './service';

export { gameService } from './service';
export type { GameRules } from './rules';

export interface GameOptions extends ServiceOptions {
  /** What "now" is for every time rule (seasons, streaks, quests, the boss's heal and escape); tests move it. Default: the system clock. */
  clock?: Clock;
}
export type RunningGame = RunningService<GameRules>;

/** Connects (database `game` by default), builds indexes, starts the outbox relay and the consumers, and listens. */
export function startGame(opts: GameOptions): Promise<RunningGame> {
  return startService(gameService(opts.clock ?? systemClock()), opts);
}
