import { GAME } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { GameRules } from '../rules';
import { seasonOf } from '../seasons/calendar';
import { seasonView } from '../seasons/view';

const TOP_PLAYERS = 5;

/** The dashboard: what is on in the team's game right now; a switched-off feature shows as null or empty, never 403. */
export const summaryHandlers = ({ members, bosses, leaderboard, clock }: GameRules) =>
  handlersFor(GAME)({
    async getGameSummary({ ctx }) {
      const flags = await members.flags(ctx.teamId);
      const state = flags.bossBattlesEnabled ? await bosses.state(ctx) : null;
      const b = state?.active ? state.boss : null;
      const top = flags.leaderboardsEnabled ? (await leaderboard.board(ctx, 'xp', 'season', TOP_PLAYERS)).entries : [];
      return {
        object: 'game_summary' as const,
        season: flags.seasonsEnabled ? seasonView(seasonOf(clock.now())) : null,
        boss: b ? { id: b.id, name: b.name, difficulty: b.difficulty, healthPercent: b.healthPercent, phase: b.phase, escapesAt: b.escapesAt } : null,
        topPlayers: top,
      };
    },
  });
