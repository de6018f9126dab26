import type { ServiceDeps } from '@helpdesk/kit';
import { bossRules } from './boss/rules';
import type { Clock } from '@helpdesk/kit';
import { leaderboardRules } from './leaderboard/rules';
import { gameMemberRules } from './members/rules';
import type { GameModels } from './collections';
import { playerActionRules } from './player/actions';
import { playerRecordRules } from './player/records';
import { playerRules } from './player/rules';
import { puzzleRules } from './puzzles/rules';
import { questRules } from './quests/rules';
import { ticketBatches } from './tickets/batch';
import { gameTicketRules } from './tickets/rules';

/** Every resource's rules, wired once; handlers and consumers share them. */
export function gameRules({ conn, models, soleInstance }: ServiceDeps<GameModels>, clock: Clock) {
  const members = gameMemberRules({ models, soleInstance });
  const tickets = gameTicketRules({ models });
  const players = playerRules({ models, members, clock });
  const batches = ticketBatches({ conn, models, members, clock });
  const actions = playerActionRules({ conn, models, players, clock });
  const bosses = bossRules({ conn, models, players, tickets, clock });
  const quests = questRules({ conn, models, players, clock });
  const puzzles = puzzleRules({ conn, models, players, clock });
  const leaderboard = leaderboardRules({ models, members, clock });
  const records = playerRecordRules({ models, clock });
  return { clock, members, tickets, players, batches, actions, bosses, quests, puzzles, leaderboard, records };
}
export type GameRules = ReturnType<typeof gameRules>;
