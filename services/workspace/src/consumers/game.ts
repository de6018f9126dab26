import { bulkWriteInScopes, consumeBatchesOnce, on, type BulkOpInScope, type ServiceDeps, type Subscription, type TypedEvent } from '@helpdesk/kit';
import type { WorkspaceModels } from '../collections';

/** The consumer name progress events are de-duplicated under (`processed_events`: `workspace-game:<event id>`). */
export const GAME_PROGRESS_CONSUMER = 'workspace-game';

export type ProgressEvent = TypedEvent<'game.player.progressed'>;

/**
 * What a batch of progress events (in arrival order) leaves on each member: the newest by
 * `occurredAt`, the later arrival among equals, exactly what applying them one by one under the
 * `progressAt` guard leaves. Keyed by `teamId:memberId`.
 */
export function latestProgress(events: ProgressEvent[]): Map<string, ProgressEvent> {
  const latest = new Map<string, ProgressEvent>();
  for (const e of events) {
    const key = `${e.teamId}:${e.mode}:${e.data.memberId}`;
    const cur = latest.get(key);
    if (!cur || Date.parse(e.occurredAt) >= Date.parse(cur.occurredAt)) latest.set(key, e);
  }
  return latest;
}

/**
 * Members' `level` and `xp` follow the game. Each partition plays its own game (docs/adr/0033): the
 * live partition's progress is `level`/`xp` (the team's game, what events and live keys show), the test
 * partition's `testLevel`/`testXp` (what test keys' reads show), each with its own `progressAt` guard.
 *
 * In micro-batches (kit's consumeBatchesOnce, docs/adr/0047): the events that arrive together are
 * recorded in `processed_events` (one insert; a redelivery fails the batch, which is then applied one
 * event at a time and the repeat skipped) and applied in ONE bulk write of one update per member, all
 * in one transaction. Progress is written with the event's `occurredAt` as `progressAt`, and only over
 * progress no newer than it: an older event arriving late (redelivered, or overtaken by a concurrent
 * delivery) never overwrites newer progress.
 */
export function gameProgress({ conn, models }: ServiceDeps<WorkspaceModels>): Subscription {
  const batches = consumeBatchesOnce<ProgressEvent>(conn, GAME_PROGRESS_CONSUMER, async (events, session) => {
    const ops = [...latestProgress(events).values()].map((e): BulkOpInScope => {
      const at = new Date(e.occurredAt);
      const [level, xp, progressAt] = e.mode === 'live' ? ['level', 'xp', 'progressAt'] : ['testLevel', 'testXp', 'testProgressAt'];
      // Members are the team's (team-wide): each update in its event's team.
      const filter = { _id: e.data.memberId, $or: [{ [progressAt]: null }, { [progressAt]: { $lte: at } }] };
      return { scope: { teamId: e.teamId }, updateOne: { filter, update: { $set: { [level]: e.data.level, [xp]: e.data.xp, [progressAt]: at } } } };
    });
    await bulkWriteInScopes(models.members, ops, { session, ordered: true });
  });
  return on('game.player.progressed', (e) => batches.submit(e));
}
