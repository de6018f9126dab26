import { updates, type LeanUpdate } from '../lean';
import { newPlayerFields } from '../player/apply';
import type { Payee, Periods, PartitionWork } from './partition-work';

/** Players: one ordered bulk (created at first use; rolled over; then the batch's sum, with the unlocks). */
export async function writePlayers({ db, session, now }: PartitionWork, payees: Map<string, Payee>, { season }: Periods): Promise<void> {
  const playerOps: LeanUpdate[] = [];
  let expectMatched = 0;
  for (const [memberId, st] of payees) {
    if (st.isNew) playerOps.push({ filter: { memberId }, update: { $setOnInsert: newPlayerFields(season.id, now) }, upsert: true });
    if (st.rolledFrom) {
      playerOps.push({ filter: { memberId, seasonId: st.rolledFrom.seasonId }, update: { $set: { seasonId: season.id, seasonXp: 0 }, $push: { pastSeasons: st.rolledFrom.past } } });
      expectMatched++;
    }
    const keys = st.unlocked.map((u) => u.key);
    playerOps.push({
      filter: { memberId, ...(keys.length ? { 'achievements.key': { $nin: keys } } : {}) },
      update: { $inc: st.inc, $set: { streak: st.p.streak }, ...(keys.length ? { $push: { achievements: { $each: st.unlocked } } } : {}) },
    });
    expectMatched++;
  }
  const written = await db.players.leanBulkWrite(updates(playerOps), { session });
  // Read in this transaction, so nothing else can have changed them; checked all the same (the batch is then paid again one by one).
  if (written.matchedCount !== expectMatched) throw new Error(`ticket batch: ${expectMatched - written.matchedCount} player write(s) matched nothing`);
}

/** Standings: the season's and the week's rows, and the UTC day's (closed tickets only), one ordered bulk of upserts. */
export async function writeStandings({ db, session }: PartitionWork, payees: Map<string, Payee>, { season, weekId, dayId }: Periods): Promise<void> {
  const standingOps = [];
  for (const [memberId, st] of payees) {
    const $inc = { xp: st.xp, tickets: st.tickets, damage: 0 };
    standingOps.push({ filter: { memberId, periodId: season.id }, update: { $inc }, upsert: true as const });
    standingOps.push({ filter: { memberId, periodId: weekId }, update: { $inc }, upsert: true as const });
    const day = st.dayRowMissing ? { $set: { xp: 0, tickets: st.dayBefore + st.tickets, damage: 0 } } : { $inc: { xp: 0, tickets: st.tickets, damage: 0 } };
    standingOps.push({ filter: { memberId, periodId: dayId }, update: day, upsert: true as const });
  }
  await db.standings.leanBulkWrite(updates(standingOps), { session });
}
