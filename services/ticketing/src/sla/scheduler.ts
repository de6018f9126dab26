import { randomBytes } from 'node:crypto';
import type mongoose from 'mongoose';
import { acrossTeams, platform, systemEventScope, withOutbox, type Logger, type ServiceWorker } from '@helpdesk/kit';
import type { Clock } from '../clock';
import type { TicketingModels } from '../collections';
import { StaleTicket } from '../tickets/conflicts';
import type { TicketsPort } from '../tickets/port';
import type { Partition } from '@helpdesk/contracts';

const LEASE_ID = 'sla-breach-scan';
/** Tickets settled per scan; the next scan takes the rest. */
const SCAN_BATCH = 200;
const DEFAULT_INTERVAL_MS = 5_000;

export interface SlaBreachScanDeps {
  conn: mongoose.Connection;
  models: TicketingModels;
  tickets: Pick<TicketsPort, 'changeIn'>;
  clock: Clock;
  logger: Logger;
  intervalMs?: number;
}

/**
 * The SLA breach scheduler (docs/adr/0026). Due times live on the tickets (`slaNextDueAt`), so a
 * restart loses nothing: the next scan finds every clock that passed meanwhile. One replica at a
 * time holds the lease (a row in MongoDB, renewed each tick, taken over when it expires); even two
 * scans at once emit `sla.breached` once, because the breach is written with the ticket's revision
 * in the same transaction as its event.
 */
export function slaBreachScan({ conn, models, tickets, clock, logger, intervalMs = DEFAULT_INTERVAL_MS }: SlaBreachScanDeps) {
  const holder = `scan_${randomBytes(8).toString('hex')}`;
  const leaseMs = Math.max(3 * intervalMs, 15_000);

  /** Takes or renews the lease; false while another replica holds an unexpired one. */
  async function takeLease(): Promise<boolean> {
    const now = new Date();
    try {
      const row = await platform(models)
        .schedulerLeases.findOneAndUpdate(
          { _id: LEASE_ID, $or: [{ holder }, { expiresAt: { $lte: now } }] },
          { $set: { holder, expiresAt: new Date(now.getTime() + leaseMs) } },
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

  /** Settles every ticket whose clock passed a due time by now; answers how many tickets it wrote. */
  async function scanDue(): Promise<number> {
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
    return settled;
  }

  return {
    holder,
    takeLease,
    scanDue,

    /** The worker: every interval, scan if this replica holds the lease. */
    start(): ServiceWorker {
      let stopped = false;
      let running: Promise<unknown> = Promise.resolve();
      const tick = async () => {
        try {
          if (await takeLease()) await scanDue();
        } catch (err) {
          logger.warn({ err }, 'SLA breach scan failed; retrying next tick');
        }
      };
      const timer = setInterval(() => {
        if (!stopped) running = running.then(tick);
      }, intervalMs);
      timer.unref();
      return {
        async stop() {
          stopped = true;
          clearInterval(timer);
          await running;
          // Hand the lease over at once instead of letting it expire.
          await platform(models).schedulerLeases.deleteOne({ _id: LEASE_ID, holder }).catch(() => undefined);
        },
      };
    },
  };
}
export type SlaBreachScan = ReturnType<typeof slaBreachScan>;
