import type mongoose from 'mongoose';
import { consumeBatchesOnce, scoped } from '@helpdesk/kit';
import type { Clock } from '@helpdesk/kit';
import type { GameMemberRules } from '../members/rules';
import type { GameModels } from '../collections';
import { writePlayers, writeStandings } from './batch-writes';
import { applyTicketSnapshots, claimPayouts, payableCloses } from './closes';
import { payClose } from './pay-close';
import { readPayees, startPayee } from './payees';
import { periodsOf, type EmitFor, type LedgerRow, type Payee, type TicketEvent, type PartitionWork } from './partition-work';

export type { TicketEvent } from './partition-work';

/** The consumer name events are de-duplicated under (`processed_events`: `game:<event id>`), as kit's consumeOnce records it. */
export const CONSUMER = 'game';

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
    const partitions = new Map<string, TicketEvent[]>();
    for (const e of events) {
      const key = `${e.teamId}:${e.mode}`;
      partitions.set(key, [...(partitions.get(key) ?? []), e]);
    }
    const now = clock.now();
    for (const list of partitions.values()) {
      const scope = { teamId: list[0]!.teamId, mode: list[0]!.mode };
      await applyPartition({ scope, db: scoped(models, scope), session, now }, list, emitFor);
    }
  });

  /** One team's partition's events of the batch, in order: the named steps, each one read and one write at most. */
  async function applyPartition(work: PartitionWork, events: TicketEvent[], emitFor: EmitFor): Promise<void> {
    const closes = await applyTicketSnapshots(work, events);
    if (!closes.length) return;
    const { payable, flags } = await payableCloses(members, work, closes);
    if (!payable.length) return;
    const paying = await claimPayouts(work, payable);
    if (!paying.length) return;

    const periods = periodsOf(work.now);
    const stored = await readPayees(work, [...new Set(paying.map((c) => c.memberId))], periods);
    const payees = new Map<string, Payee>();
    const ledger: LedgerRow[] = [];
    for (const c of paying) {
      const emit = emitFor(c.event);
      let st = payees.get(c.memberId);
      if (!st) payees.set(c.memberId, (st = await startPayee(work, stored, c.memberId, periods, emit)));
      payClose({ periods, now: work.now, flags, ledger, emit }, st, c);
    }

    await writePlayers(work, payees, periods);
    await work.db.ledger.leanInsert(ledger, { session: work.session });
    await writeStandings(work, payees, periods);
  }

  return {
    /** Applies a ticket event in the next batch; resolves once that batch committed (rejects if it failed). */
    submit: (event: TicketEvent): Promise<void> => batches.submit(event),
    /** Batches committed, events in them, the largest, and batches paid again one by one (for benchmarks). */
    stats: () => batches.stats(),
  };
}
export type TicketBatches = ReturnType<typeof ticketBatches>;
