import type { Scope, Unscoped } from '@helpdesk/kit';
import type { DeliveryDoc } from '../webhooks/deliveries/model';
import type { WebhookDoc } from '../webhooks/model';

/** New delivery rows, as the code that creates them builds them: their team and partition are the scope they are written with. */
export type NewDelivery = Unscoped<DeliveryDoc>;

/**
 * Attempt slots of this process's worker promised to rows about to be committed, and the lease to
 * write on them so that no other worker claims them.
 */
export interface Reservation {
  owner: string;
  until: Date;
  /** The slots reserved: as many as asked for, or fewer when fewer were free (the rest are written unleased). */
  count: number;
  /** The rows were committed in `scope` with this lease: send them now (webhooks with their secrets); once per scope of a unit. */
  take(scope: Scope, rows: NewDelivery[], hooks: ReadonlyMap<string, WebhookDoc>): void;
  /** The rows were not committed (a duplicate event, an error): give the slots back. */
  release(): void;
}

/** What code that creates deliveries needs from the worker (the consumer, trigger-test, redelivery). */
export interface Dispatcher {
  /** New deliveries were committed: look for due rows now rather than at the next poll. */
  kick(): void;
  /** Reserves up to `n` slots (as many as are free), or null when none is or the worker is stopped (then commit unleased and kick). */
  reserve(n: number): Reservation | null;
}

/** New rows of one team and partition, and the webhooks they go to (secrets included). */
export interface DeliveryGroup {
  scope: Scope;
  rows: NewDelivery[];
  hooks: ReadonlyMap<string, WebhookDoc>;
}

/**
 * Commits new delivery rows of one team and partition (`scope`) with `write` (true when they were
 * written, false for a duplicate event) and gets them sent with the least delay: as many rows as this
 * process's worker has free slots for are written already leased to it and handed over after the
 * commit (no query to find them again); the others are written unleased and the worker is kicked to
 * claim them. A process that dies in between leaves leases that expire: the rows are then claimed
 * like any other.
 */
export function commitAndDispatch(
  dispatch: Dispatcher,
  scope: Scope,
  rows: NewDelivery[],
  hooks: ReadonlyMap<string, WebhookDoc>,
  write: (rows: NewDelivery[]) => Promise<boolean>,
): Promise<void> {
  return commitAndDispatchGroups(dispatch, [{ scope, rows, hooks }], write);
}

/**
 * `commitAndDispatch` for the rows of several teams and partitions written in one unit of work (the
 * consumer's micro-batches): one reservation for all of them, each group handed over in its scope
 * once `write` committed. A `write` that throws gives the slots back and throws.
 */
export async function commitAndDispatchGroups(
  dispatch: Dispatcher,
  groups: readonly DeliveryGroup[],
  write: (rows: NewDelivery[]) => Promise<boolean>,
): Promise<void> {
  const rows = groups.flatMap((g) => g.rows);
  if (!rows.length) return;
  const reservation = dispatch.reserve(rows.length);
  // The first `count` rows are written leased to this worker; any beyond its free slots, unleased.
  const leased = new Set(reservation ? rows.slice(0, reservation.count) : []);
  if (reservation) for (const r of leased) Object.assign(r, { leaseOwner: reservation.owner, leaseUntil: reservation.until });
  let committed = false;
  try {
    committed = await write(rows);
  } finally {
    if (reservation && committed) {
      for (const g of groups) {
        const mine = g.rows.filter((r) => leased.has(r));
        if (mine.length) reservation.take(g.scope, mine, g.hooks);
      }
    } else reservation?.release();
    if (committed && leased.size < rows.length) dispatch.kick();
  }
}
