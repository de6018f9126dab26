import { GAME } from '@helpdesk/contracts';
import { defineService } from '@helpdesk/kit';
import { bossHandlers } from './boss/handlers';
import type { Clock } from './clock';
import { consumers } from './consumers';
import { shopHandlers } from './cosmetics/handlers';
import { kudosHandlers } from './kudos/handlers';
import { gameModels } from './models';
import { playerHandlers } from './player/handlers';
import { questHandlers } from './quests/handlers';
import { gameRules } from './rules';

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
    handlers: (rules) => ({ ...playerHandlers(rules), ...bossHandlers(rules), ...questHandlers(rules), ...kudosHandlers(rules), ...shopHandlers(rules) }),
    consumers,
  });
