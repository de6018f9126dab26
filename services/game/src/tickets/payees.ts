import type { Emit } from '@helpdesk/kit';
import { newPlayerFields, rolloverOf } from '../player/apply';
import type { PlayerDoc, StandingDoc } from '../player/model';
import type { Payee, Periods, PartitionWork } from './partition-work';

/** The payees' players and their week's and day's standings, read once (one after the other: a session runs one operation at a time). */
export async function readPayees({ db, session }: PartitionWork, payees: string[], { weekId, dayId }: Periods) {
  const stored = await db.players.leanFind<PlayerDoc>({ memberId: { $in: payees } }, { session });
  const standings = await db.standings.leanFind<StandingDoc>({ memberId: { $in: payees }, periodId: { $in: [weekId, dayId] } }, { session, projection: { memberId: 1, periodId: 1, tickets: 1 } });
  return {
    players: new Map(stored.map((p) => [p.memberId, p])),
    standing: (memberId: string, periodId: string) => standings.find((s) => s.memberId === memberId && s.periodId === periodId),
  };
}
export type StoredPayees = Awaited<ReturnType<typeof readPayees>>;

/**
 * A payee's state at its first payment of the batch: the stored player (or a new one), rolled over
 * into the current season if needed (as players.load does it: announced before the member's first
 * payment of the batch), and the standings' counts the batch starts from.
 */
export async function startPayee({ scope, db, session, now }: PartitionWork, stored: StoredPayees, memberId: string, { season, weekId, dayId }: Periods, emit: Emit): Promise<Payee> {
  const loaded = stored.players.get(memberId);
  const p: PlayerDoc = loaded ?? ({ teamId: scope.teamId, mode: scope.mode, memberId, ...newPlayerFields(season.id, now) } as unknown as PlayerDoc);
  let rolledFrom: Payee['rolledFrom'] = null;
  if (p.seasonId !== season.id) {
    const { finalLevel, past } = rolloverOf(p);
    rolledFrom = { seasonId: p.seasonId, past };
    emit({ type: 'game.season.rolled_over', data: { memberId, fromSeasonId: p.seasonId, toSeasonId: season.id, finalLevel, finalXp: p.seasonXp } });
    emit({ type: 'game.player.progressed', data: { memberId, seasonId: season.id, level: 1, xp: 0 } });
    Object.assign(p, { seasonId: season.id, seasonXp: 0, pastSeasons: [...p.pastSeasons, past] });
  }
  const day = stored.standing(memberId, dayId);
  // Day rows began with ADR 0044: a day whose row is missing is counted from the ledger once.
  const dayBefore = day ? day.tickets : await db.ledger.countDocuments({ memberId, kind: 'ticket_closed', dayId }).session(session);
  return { p, isNew: !loaded, rolledFrom, inc: {}, unlocked: [], xp: 0, tickets: 0, weekBefore: stored.standing(memberId, weekId)?.tickets ?? 0, dayBefore, dayRowMissing: !day };
}
