import type mongoose from 'mongoose';
import { consumeBatchesOnce, scoped, type Emit, type Scope, type TypedEvent } from '@helpdesk/kit';
import type { Clock } from '../clock';
import { updates, type LeanUpdate } from '../lean';
import type { GameMemberRules } from '../members/rules';
import type { GameModels } from '../models';
import { achievementsEarned, applyInc, awardStep, completesOn, newPlayerFields, nextStreak, questsCounting, rolloverOf } from '../player/apply';
import type { LedgerDoc, PlayerDoc, StandingDoc } from '../player/model';
import { levelOf, ticketPay } from '../player/progression';
import { dayIdOf, seasonOf, weekIdOf } from '../seasons/calendar';
import type { GameTicketDoc } from './model';
import { applySnapshot, isCustomerTicket } from './rules';

/** The consumer name events are de-duplicated under (`processed_events`: `game:<event id>`), as kit's consumeOnce records it. */
export const CONSUMER = 'game';

export type TicketEvent = TypedEvent<'ticket.created' | 'ticket.updated' | 'ticket.closed'>;

/**
 * The ticket events (created, updated, closed), applied in micro-batches (docs/adr/0047): the
 * deliveries that arrive together (what the bus has in flight, up to its prefetch) are applied in
 * arrival order in ONE transaction: one read of each kind of document they touch, one write of each
 * (tickets, payout rows, players, ledger rows, standings), the de-duplication records (kit's
 * `processed_events`, `game:<event id>`, as consumeOnce writes them) and every emitted event (kit's
 * outbox, through withOutbox). Each delivery's handler resolves (ack) once its batch committed. A
 * batch that fails is applied again one delivery at a time (each its own transaction), so one bad or
 * repeated event fails or is skipped alone; a batch of one failing rejects (the bus redelivers).
 *
 * One batch at a time in this process; the next one is made of what arrived meanwhile (no timer: a
 * batch starts at the next turn of the event loop). Payments are exact in a batch as one by one: the
 * same rules (player/apply.ts) applied to the player in memory, in order, then written as one sum.
 */
export function ticketBatches({ conn, models, members, clock }: { conn: mongoose.Connection; models: GameModels; members: GameMemberRules; clock: Clock }) {
  const batches = consumeBatchesOnce<TicketEvent>(conn, CONSUMER, async (events, session, emitFor) => {
    const worlds = new Map<string, TicketEvent[]>();
    for (const e of events) {
      const key = `${e.teamId}:${e.mode}`;
      worlds.set(key, [...(worlds.get(key) ?? []), e]);
    }
    const now = clock();
    for (const list of worlds.values()) await applyWorld({ teamId: list[0]!.teamId, mode: list[0]!.mode }, list, session, emitFor, now);
  });

  /** One world's (team + partition) events of the batch, in order. */
  async function applyWorld(scope: Scope, events: TicketEvent[], session: mongoose.ClientSession, emitFor: (cause: TicketEvent) => Emit, now: Date): Promise<void> {
    const db = scoped(models, scope);
    // Tickets: one read, each snapshot applied in order, one write.
    const ids = [...new Set(events.map((e) => e.data.ticket.id))];
    const tickets = new Map((await db.tickets.leanFind<GameTicketDoc>({ _id: { $in: ids } }, { session })).map((t) => [t._id, t]));
    const ticketWrites = [];
    const closes: { event: TicketEvent; ticket: GameTicketDoc; memberId: string }[] = [];
    for (const e of events) {
      const { doc, write } = applySnapshot(scope, tickets.get(e.data.ticket.id) ?? null, e.data.ticket);
      tickets.set(doc._id, doc);
      if (write) ticketWrites.push(write);
      // A close pays the member who closed it (the event's actor), once per ticket, ever; customer tickets only.
      if (e.type === 'ticket.closed' && e.actor.type === 'member' && e.actor.id && isCustomerTicket(doc)) closes.push({ event: e, ticket: doc, memberId: e.actor.id });
    }
    if (ticketWrites.length) await db.tickets.leanBulkWrite(updates(ticketWrites), { session });
    if (!closes.length) return;

    // The members as the workspace last told (removed ones pay nothing) and the team's switches, read once.
    const memberIds = [...new Set(closes.map((c) => c.memberId))];
    const [found, flags] = await Promise.all([Promise.all(memberIds.map((id) => members.find(scope.teamId, id))), members.flags(scope.teamId)]);
    const current = new Set(found.flatMap((m) => (m ? [m._id] : [])));
    const payable = closes.filter((c) => current.has(c.memberId));
    if (!payable.length) return;
    // Payout rows: one ordered bulk of upserts; a ticket paid already (before, or earlier in this batch)
    // matches its row and is not upserted. The unique index on the ticket per world stays the guarantee.
    const res = await db.payouts.leanBulkWrite(
      updates(payable.map((c) => ({ filter: { ticketId: c.ticket._id }, update: { $setOnInsert: { memberId: c.memberId, paidAt: now } }, upsert: true }))),
      { session },
    );
    const paying = payable.filter((_, i) => res.upsertedIds?.[i] !== undefined);
    if (!paying.length) return;

    const season = seasonOf(now);
    const dayId = dayIdOf(now);
    const weekId = weekIdOf(now);
    const payees = [...new Set(paying.map((c) => c.memberId))];
    // One after the other: a session runs one operation at a time.
    const stored = await db.players.leanFind<PlayerDoc>({ memberId: { $in: payees } }, { session });
    const standings = await db.standings.leanFind<StandingDoc>({ memberId: { $in: payees }, periodId: { $in: [weekId, dayId] } }, { session, projection: { memberId: 1, periodId: 1, tickets: 1 } });
    const players = new Map(stored.map((p) => [p.memberId, p]));
    const standing = (memberId: string, periodId: string) => standings.find((s) => s.memberId === memberId && s.periodId === periodId);

    /** One payee's state in this batch: the player in memory, and what the batch adds to it. */
    interface Payee {
      p: PlayerDoc;
      isNew: boolean;
      rolledFrom: { seasonId: string; past: PlayerDoc['pastSeasons'][number] } | null;
      inc: Record<string, number>;
      unlocked: PlayerDoc['achievements'];
      xp: number;
      tickets: number;
      /** `tickets` of the week's and the day's standings as this batch found them (the day from the ledger when its row is missing). */
      weekBefore: number;
      dayBefore: number;
      dayRowMissing: boolean;
    }
    const payeeState = new Map<string, Payee>();
    const ledger: Omit<LedgerDoc, '_id' | 'teamId' | 'mode'>[] = [];
    const ledgerRow = (memberId: string, kind: LedgerDoc['kind'], a: { xp?: number; gold?: number; tickets?: number }) =>
      ledger.push({ memberId, kind, xp: a.xp ?? 0, gold: a.gold ?? 0, damage: 0, tickets: a.tickets ?? 0, at: now, seasonId: season.id, weekId, dayId });

    for (const c of paying) {
      const emit = emitFor(c.event);
      const { memberId, ticket } = c;
      let st = payeeState.get(memberId);
      if (!st) {
        const loaded = players.get(memberId);
        const p: PlayerDoc = loaded ?? ({ teamId: scope.teamId, mode: scope.mode, memberId, ...newPlayerFields(season.id, now) } as unknown as PlayerDoc);
        let rolledFrom: Payee['rolledFrom'] = null;
        if (p.seasonId !== season.id) {
          // Season rollover (as players.load does it): announced before the member's first payment of the batch.
          const { finalLevel, past } = rolloverOf(p);
          rolledFrom = { seasonId: p.seasonId, past };
          emit({ type: 'game.season.rolled_over', data: { memberId, fromSeasonId: p.seasonId, toSeasonId: season.id, finalLevel, finalXp: p.seasonXp } });
          emit({ type: 'game.player.progressed', data: { memberId, seasonId: season.id, level: 1, xp: 0 } });
          Object.assign(p, { seasonId: season.id, seasonXp: 0, pastSeasons: [...p.pastSeasons, past] });
        }
        const day = standing(memberId, dayId);
        // Day rows began with ADR 0044: a day whose row is missing is counted from the ledger once.
        const dayBefore = day ? day.tickets : await db.ledger.countDocuments({ memberId, kind: 'ticket_closed', dayId }).session(session);
        st = { p, isNew: !loaded, rolledFrom, inc: {}, unlocked: [], xp: 0, tickets: 0, weekBefore: standing(memberId, weekId)?.tickets ?? 0, dayBefore, dayRowMissing: !day };
        payeeState.set(memberId, st);
      }
      const { p } = st;
      const streak = nextStreak(p.streak, dayId);
      const pay = ticketPay({ priority: ticket.priority, slaTier: ticket.slaTier, streakDays: streak.current, skills: p.skills });
      const step = awardStep(p, { xp: pay.xp, gold: pay.gold, stats: { ticketsClosed: 1, goldSlaTickets: ticket.slaTier === 'gold' ? 1 : 0 } });
      applyInc(p, step.inc);
      p.streak = streak;
      for (const [k, v] of Object.entries(step.inc)) st.inc[k] = (st.inc[k] ?? 0) + v;
      ledgerRow(memberId, 'ticket_closed', { xp: step.xp, gold: pay.gold, tickets: 1 });
      st.xp += step.xp;
      st.tickets += 1;
      if (flags.questsEnabled) {
        for (const q of questsCounting('ticket_closed')) {
          const count = (q.cadence === 'daily' ? st.dayBefore : st.weekBefore) + st.tickets;
          if (completesOn(q, count)) emit({ type: 'game.quest.completed', data: { memberId, quest: q.key, periodId: q.cadence === 'daily' ? dayId : weekId } });
        }
      }
      emit({
        type: 'game.xp_awarded',
        data: { memberId, reason: 'ticket_closed', xp: step.xp, gold: pay.gold, ticketId: ticket._id, breakdown: { ...pay.breakdown, prestige: step.prestige }, seasonId: p.seasonId, level: levelOf(p.seasonXp), seasonXp: p.seasonXp },
      });
      if (step.levelAfter > step.levelBefore) emit({ type: 'game.level_up', data: { memberId, seasonId: p.seasonId, previousLevel: step.levelBefore, level: step.levelAfter } });
      emit({ type: 'game.player.progressed', data: { memberId, seasonId: p.seasonId, level: levelOf(p.seasonXp), xp: p.seasonXp } });
      if (flags.achievementsEnabled) {
        for (const a of achievementsEarned(p)) {
          const unlocked = { key: a.key, unlockedAt: now };
          p.achievements = [...p.achievements, unlocked];
          p.gold += a.gold;
          st.inc.gold = (st.inc.gold ?? 0) + a.gold;
          st.unlocked.push(unlocked);
          ledgerRow(memberId, 'achievement', { gold: a.gold });
          emit({ type: 'game.achievement.unlocked', data: { memberId, achievement: a.key, name: a.name, gold: a.gold } });
        }
      }
    }

    // Players: one ordered bulk (created at first use; rolled over; then the batch's sum, with the unlocks).
    const playerOps: LeanUpdate[] = [];
    let expectMatched = 0;
    for (const [memberId, st] of payeeState) {
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
    await db.ledger.leanInsert(ledger, { session });
    // Standings: the season's and the week's rows, and the UTC day's (closed tickets only), one ordered bulk of upserts.
    const standingOps = [];
    for (const [memberId, st] of payeeState) {
      const $inc = { xp: st.xp, tickets: st.tickets, damage: 0 };
      standingOps.push({ filter: { memberId, periodId: season.id }, update: { $inc }, upsert: true as const });
      standingOps.push({ filter: { memberId, periodId: weekId }, update: { $inc }, upsert: true as const });
      const day = st.dayRowMissing ? { $set: { xp: 0, tickets: st.dayBefore + st.tickets, damage: 0 } } : { $inc: { xp: 0, tickets: st.tickets, damage: 0 } };
      standingOps.push({ filter: { memberId, periodId: dayId }, update: day, upsert: true as const });
    }
    await db.standings.leanBulkWrite(updates(standingOps), { session });
  }

  return {
    /** Applies a ticket event in the next batch; resolves once that batch committed (rejects if it failed). */
    submit: (event: TicketEvent): Promise<void> => batches.submit(event),
    /** Batches committed, events in them, the largest, and batches paid again one by one (for benchmarks). */
    stats: () => batches.stats(),
  };
}
export type TicketBatches = ReturnType<typeof ticketBatches>;
