import type { DeliveryDoc } from '../deliveries/model';
import type { WebhookDoc } from '../webhooks/model';

/** A claim written on rows before they are committed, so they go straight to this process's worker. */
export interface Lease {
  owner: string;
  until: Date;
}

/** What code that creates deliveries needs from the worker (the consumer, trigger-test, redelivery). */
export interface Dispatcher {
  /** New deliveries were committed: look for due rows now rather than at the next poll. */
  kick(): void;
  /** Reserves `n` attempt slots for rows about to be committed: the lease to write on them, or null when busy or stopped. */
  reserve(n: number): Lease | null;
  /** Committed rows written with a reserved lease, and their webhooks (secrets included): sent at once. */
  take(rows: DeliveryDoc[], hooks: ReadonlyMap<string, WebhookDoc>): void;
  /** Gives back a reservation whose rows were not committed. */
  release(n: number): void;
}

/**
 * Commits new delivery rows with `write` (true when they were written, false for a duplicate event)
 * and gets them sent with the least delay: when this process's worker has free slots the rows are
 * written already leased to it and handed over after the commit (no query to find them again);
 * otherwise they are written unleased and the worker is kicked to claim them. A process that dies
 * in between leaves leases that expire: the rows are then claimed like any other.
 */
export async function commitAndDispatch(
  dispatch: Dispatcher,
  rows: DeliveryDoc[],
  hooks: ReadonlyMap<string, WebhookDoc>,
  write: (rows: DeliveryDoc[]) => Promise<boolean>,
): Promise<void> {
  if (!rows.length) return;
  const lease = dispatch.reserve(rows.length);
  if (lease) for (const r of rows) Object.assign(r, { leaseOwner: lease.owner, leaseUntil: lease.until });
  let committed = false;
  try {
    committed = await write(rows);
  } finally {
    if (!lease) {
      if (committed) dispatch.kick();
    } else if (committed) dispatch.take(rows, hooks);
    else dispatch.release(rows.length);
  }
}
