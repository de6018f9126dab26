import { randomBytes } from 'node:crypto';
import type mongoose from 'mongoose';
import { acrossTeams, platform, systemEventScope, withOutbox, WorkSignal, type Logger, type ServiceWorker } from '@helpdesk/kit';
import type { Clock } from '../clock';
import type { TicketingModels } from '../collections';
import { StaleTicket } from '../tickets/conflicts';
import type { TicketsPort } from '../tickets/port';
import type { Partition } from '@helpdesk/contracts';

const LEASE_ID = 'sla-breach-scan';
/** Tickets settled per scan; a full batch is followed by the next one at once. */
const SCAN_BATCH = 200;
/** The longest sleep without a known due time (docs/adr/0070): what another replica committed and died before its due time. */
const DEFAULT_IDLE_LOOK_MS = 30_000;
/** How long a scan holds the lease at most without renewing it (a crashed holder blocks others this long). */
const LEASE_MS = 15_000;
/** A due ticket while another replica holds the lease (it is scanning): look again this soon. */
const LEASE_BUSY_RETRY_MS = 1_000;
/** After a failed round, or one that left due tickets it could not settle: the next look (the former fixed interval). */
const RETRY_MS = 5_000;

/**
 * The scan's sleep, which ticket writes end when they commit a due time sooner than the one it sleeps
 * to (docs/adr/0070). The SLA clock calls `moved` after commit (kit's `afterCommit`); while the scan
 * is busy every due time counts, so one committed between its read and its sleep is not missed.
 */
export class SlaDueTimes {
  private readonly work = new WorkSignal();
  /** While asleep: when the sleep ends (`performance.now()` ms) and the clock due times are read on; null while busy. */
  private asleep: { until: number; clock: Clock } | null = null;

  /** A committed ticket write set its next due time to `at`. */
  moved(at: Date): void {
    const { asleep } = this;
    // Compared as a delay from now on the service's clock, so a test that sets the clock compares like production.
    if (!asleep || performance.now() + (at.getTime() - asleep.clock.now().getTime()) < asleep.until) this.work.signal();
  }

  /** Ends the current or next sleep at once (stop). */
  wake(): void {
    this.work.signal();
  }

  /** Sleeps `ms`, or until a write brings a due time nearer than that. */
  async sleep(ms: number, clock: Clock): Promise<void> {
    this.asleep = { until: performance.now() + ms, clock };
    try {
      await this.work.wait(ms);
    } finally {
      this.asleep = null;
    }
  }
}

export interface SlaBreachScanDeps {
  conn: mongoose.Connection;
  models: TicketingModels;
  tickets: Pick<TicketsPort, 'changeIn'>;
  clock: Clock;
  logger: Logger;
  /** What wakes the worker when a write moves a due time nearer (shared with the SLA clock); default its own. */
  dueTimes?: SlaDueTimes;
  /** The longest sleep when no ticket has a due time nearer (default 30 s). */
  idleLookMs?: number;
}

/**
 * The SLA breach scheduler (docs/adr/0026, 0070). Due times live on the tickets (`slaNextDueAt`), so
 * a restart loses nothing: the first look at start finds every clock that passed meanwhile. The
 * worker sleeps until the nearest due time (at most `idleLookMs`), woken sooner by a commit that sets
 * a nearer one. A replica holds the lease (a row in MongoDB) only while it scans, and hands it back
 * after; even two scans at once emit `sla.breached` once, because the breach is written with the
 * ticket's revision in the same transaction as its event.
 */
export function slaBreachScan({ conn, models, tickets, clock, logger, dueTimes = new SlaDueTimes(), idleLookMs = DEFAULT_IDLE_LOOK_MS }: SlaBreachScanDeps) {
  const holder = `scan_${randomBytes(8).toString('hex')}`;

  /** Takes or renews the lease; false while another replica holds an unexpired one. */
  async function takeLease(): Promise<boolean> {
    const now = new Date();
    try {
      const row = await platform(models)
        .schedulerLeases.findOneAndUpdate(
          { _id: LEASE_ID, $or: [{ holder }, { expiresAt: { $lte: now } }] },
          { $set: { holder, expiresAt: new Date(now.getTime() + LEASE_MS) } },
          { upsert: true, returnDocument: 'after' },
        )
        .lean();
      return row?.holder === holder;
    } catch (err) {
      // The row exists and is another replica's: the upsert's insert collided with it.
      if ((err as { code?: number }).code === 11000) return false;
      throw err;
    }
  }

  /** Hands the lease back, so another replica's due ticket waits for no expiry. */
  async function releaseLease(): Promise<void> {
    await platform(models)
      .schedulerLeases.deleteOne({ _id: LEASE_ID, holder })
      .catch(() => undefined);
  }

  /** The nearest due time of any ticket (across teams on purpose), or null when no clock runs. */
  async function nextDueAt(): Promise<Date | null> {
    const [first] = await acrossTeams(models)
      .tickets.find({ slaNextDueAt: { $type: 'date' } }, { projection: { _id: 0, slaNextDueAt: 1 }, limit: 1, sort: { slaNextDueAt: 1 } })
      .toArray();
    return (first?.slaNextDueAt as Date | undefined) ?? null;
  }

  /** One batch: settles the tickets whose clock passed a due time by now; how many it found and wrote. */
  async function scanBatch(): Promise<{ found: number; settled: number }> {
    // Across teams on purpose (each ticket is then settled in its own scope).
    const due = await acrossTeams(models)
      .tickets.find({ slaNextDueAt: { $lte: clock.now() } }, { projection: { _id: 1, teamId: 1, mode: 1 }, limit: SCAN_BATCH, sort: { slaNextDueAt: 1 } })
      .toArray();
    let settled = 0;
    for (const t of due) {
      const scope = { teamId: String(t.teamId), mode: t.mode as Partition };
      try {
        const wrote = await withOutbox(conn, systemEventScope(scope), async (session, emit) => {
          const { next, cur } = await tickets.changeIn(session, emit, scope, String(t._id), {});
          return next !== cur;
        });
        if (wrote) settled++;
      } catch (err) {
        // Another write (or replica) got there first: the next scan sees its result.
        if (!(err instanceof StaleTicket)) logger.warn({ err, ticketId: t._id }, 'SLA breach scan: ticket not settled');
      }
    }
    return { found: due.length, settled };
  }

  /** Settles every ticket whose clock passed a due time by now (one batch); answers how many tickets it wrote. */
  async function scanDue(): Promise<number> {
    return (await scanBatch()).settled;
  }

  /**
   * One look: when a due time passed, scan under the lease (batch after batch while they come full),
   * then hand it back. Answers how long to sleep before the next look.
   */
  async function look(isStopped: () => boolean): Promise<number> {
    const next = await nextDueAt();
    const wait = next ? next.getTime() - clock.now().getTime() : Infinity;
    if (wait > 0) return Math.min(wait, idleLookMs);
    if (!(await takeLease())) return LEASE_BUSY_RETRY_MS;
    let unsettled = false;
    try {
      for (;;) {
        const { found, settled } = await scanBatch();
        if (settled < found) unsettled = true;
        if (found < SCAN_BATCH || isStopped() || !(await takeLease())) break;
      }
    } finally {
      await releaseLease();
    }
    // Nothing left that could not be settled: the next due time is read at once.
    return unsettled ? RETRY_MS : 0;
  }

  return {
    holder,
    takeLease,
    scanDue,
    nextDueAt,
    dueTimes,

    /** The worker: looks at start, then at each due time (or a nearer one a commit sets), at most every `idleLookMs` without one. */
    start(): ServiceWorker {
      let stopped = false;
      const isStopped = () => stopped;
      const loop = (async () => {
        while (!stopped) {
          let ms: number;
          try {
            ms = await look(isStopped);
          } catch (err) {
            logger.warn({ err }, 'SLA breach scan failed; retrying');
            ms = RETRY_MS;
          }
          if (!stopped && ms > 0) await dueTimes.sleep(ms, clock);
        }
      })();
      return {
        async stop() {
          stopped = true;
          dueTimes.wake();
          await loop;
          // Hand the lease over at once instead of letting it expire (a look in progress already did).
          await releaseLease();
        },
      };
    },
  };
}
export type SlaBreachScan = ReturnType<typeof slaBreachScan>;
