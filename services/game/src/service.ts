import { GAME } from '@helpdesk/contracts';
import { defineService, MAX_MICRO_BATCH } from '@helpdesk/kit';
import { bossHandlers } from './boss/handlers';
import type { Clock } from '@helpdesk/kit';
import { consumers } from './consumers';
import { cosmeticHandlers } from './cosmetics/handlers';
import { kudosHandlers } from './kudos/handlers';
import { leaderboardHandlers } from './leaderboard/handlers';
import { gameModels } from './collections';
import { playerHandlers } from './player/handlers';
import { puzzleHandlers } from './puzzles/handlers';
import { questHandlers } from './quests/handlers';
import { gameRules } from './rules';
import { seasonHandlers } from './seasons/handlers';
import { skillHandlers } from './skills/handlers';
import { summaryHandlers } from './summary/handlers';

/**
 * The game service: players, XP, levels and seasons made from ticket events, boss battles,
 * achievements, quests, puzzles, kudos, cosmetics, skills and leaderboards (docs/adr/0032, 0033).
 */
export const gameService = (clock: Clock) =>
  defineService({
    name: 'game',
    operations: GAME,
    models: gameModels,
    rules: (deps) => gameRules(deps, clock),
    handlers: (rules, deps) => ({
      ...playerHandlers(rules),
      ...bossHandlers(rules),
      ...questHandlers(rules),
      ...puzzleHandlers(rules),
      ...kudosHandlers(rules, deps),
      ...leaderboardHandlers(rules),
      ...cosmeticHandlers(rules),
      ...skillHandlers(rules),
      ...seasonHandlers(rules),
      ...summaryHandlers(rules),
    }),
    consumers,
    // The ticket batches take what is in flight (docs/adr/0047): up to a whole batch at once.
    prefetch: MAX_MICRO_BATCH,
  });
