import { GAME } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { GameRules } from '../rules';
import { previousSeason, seasonById, seasonOf } from './calendar';
import { seasonView } from './view';

/** Seasons: the current one, and past ones with the level a member ended each with. */
export const seasonHandlers = ({ members, players, clock }: GameRules) =>
  handlersFor(GAME)({
    async getCurrentSeason({ ctx }) {
      await members.requireFeature(ctx.teamId, 'seasonsEnabled');
      return seasonView(seasonOf(clock.now()));
    },
    async listSeasons({ ctx, query }) {
      await members.requireFeature(ctx.teamId, 'seasonsEnabled');
      const member = query.userId ? await members.resolve(ctx.teamId, query.userId, 'userId') : null;
      const p = member ? await players.find(ctx, member._id) : null;
      const played = new Map((p?.pastSeasons ?? []).map((s) => [s.seasonId, s]));
      // Every season the member played, and the four before the current one.
      const ids = new Set(played.keys());
      for (let s = previousSeason(seasonOf(clock.now())), i = 0; i < 4; s = previousSeason(s), i++) ids.add(s.id);
      const hidden = !member || member.boringMode;
      return [...ids].sort().reverse().map((id) => {
        const mine = played.get(id);
        return { ...seasonView(seasonById(id)), finalLevel: hidden ? null : (mine?.level ?? null), finalXp: hidden ? null : (mine?.xp ?? null) };
      });
    },
  });
