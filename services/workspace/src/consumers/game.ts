import { consumeOnce, on, scoped, type ServiceDeps, type Subscription } from '@helpdesk/kit';
import type { WorkspaceModels } from '../models';
import { teamScope } from '../team-scope';

/**
 * Members' `level` and `xp` follow the game: the live partition's game world is the team's (the test
 * partition plays a separate world, docs/adr/0033), so only its progress is written on the member.
 */
export const gameProgress = ({ conn, models }: ServiceDeps<WorkspaceModels>): Subscription =>
  on('game.player.progressed', async (e) => {
    if (e.mode !== 'live') return;
    await consumeOnce(conn, 'workspace-game', e, async (session) => {
      await scoped(models, teamScope(e)).members.updateOne({ _id: e.data.memberId }, { $set: { level: e.data.level, xp: e.data.xp } }, { session });
    });
  });
