import type mongoose from 'mongoose';
import type { BusLogger } from './bus/types';
import { createLogger } from './logger';
import { transactionGaveUp, transactionRetries } from './metrics';

/** The logger of each connection's transaction retries (its service's, set by startService). */
const loggers = new WeakMap<mongoose.Connection, BusLogger>();
let fallback: BusLogger | null = null;

/** Transaction retries on `conn` are logged through `logger` (startService registers the service's). */
export function useTransactionLogger(conn: mongoose.Connection, logger: BusLogger): void {
  loggers.set(conn, logger);
}

/**
 * Runs `fn` in one transaction on `conn` (mongoose's `conn.transaction`, the driver's
 * `withTransaction`; `fn` must touch the database only through `session`). A transient error (the
 * `TransientTransactionError` label: a write conflict with a concurrent transaction, a primary
 * stepping down) runs `fn` again after the driver's jittered exponential backoff (5 ms × 1.5ⁿ, each
 * wait at most 500 ms, 120 s in all, then the error is thrown). Each retry is logged at warn with its
 * attempt number and the error that caused it, and counted in `helpdesk_transaction_retries_total`
 * labelled with the database (the service's name).
 */
export async function inTransaction<R>(
  conn: mongoose.Connection,
  fn: (session: mongoose.ClientSession) => Promise<R>,
  opts: {
    /**
     * Stop retrying once this long has passed (a consumer's unit of work: a record held by another
     * transaction, a dead process's included, must not hold the rest of its queue; the event goes back
     * to the broker and is retried later). Thrown as TransactionGaveUp. Default: the driver's 120 s.
     */
    giveUpAfterMs?: number;
  } = {},
): Promise<R> {
  let attempt = 0;
  let lastError: unknown = null;
  const started = Date.now();
  let unitSession: mongoose.ClientSession | null = null;
  const result = await conn.transaction(async (session) => {
    attempt++;
    unitSession = session;
    commitHooks.set(session, []); // an attempt that is retried leaves nothing to run
    if (attempt > 1 && opts.giveUpAfterMs !== undefined && Date.now() - started >= opts.giveUpAfterMs) {
      transactionGaveUp.inc({ service: conn.name });
      throw new TransactionGaveUp(attempt - 1, Date.now() - started, lastError);
    }
    if (attempt > 1) {
      transactionRetries.inc({ service: conn.name });
      const logger = loggers.get(conn) ?? (fallback ??= createLogger('kit'));
      const err = lastError as { message?: string; codeName?: string } | null;
      logger.warn({ attempt, database: conn.name, err: err?.message ?? 'commit not acknowledged', code: err?.codeName }, 'transaction retried after a transient error');
    }
    try {
      return await fn(session);
    } catch (err) {
      lastError = err;
      throw err;
    }
  });
  if (unitSession) {
    const hooks = commitHooks.get(unitSession) ?? [];
    commitHooks.delete(unitSession);
    for (const hook of hooks) hook();
  }
  return result;
}

/** What to run once each unit of work committed, by its session (filled by `afterCommit`). */
const commitHooks = new WeakMap<mongoose.ClientSession, Array<() => void>>();

/**
 * Runs `fn` once the transaction of `session` (an `inTransaction` unit) has committed, and not at all
 * if it does not: a worker woken by it sees the rows the unit wrote. A session outside `inTransaction`
 * runs `fn` at once after the current task.
 */
export function afterCommit(session: mongoose.ClientSession | null | undefined, fn: () => void): void {
  const hooks = session ? commitHooks.get(session) : undefined;
  if (hooks) hooks.push(fn);
  else queueMicrotask(fn);
}

/** A transaction that kept meeting transient errors past its bound (inTransaction's `giveUpAfterMs`); not retried by the driver. */
export class TransactionGaveUp extends Error {
  constructor(
    readonly attempts: number,
    readonly elapsedMs: number,
    readonly lastError: unknown,
  ) {
    // `cause`: what made it give up (a database out of reach is still a 503, kit's http.ts).
    super(`transaction gave up after ${attempts} attempts in ${elapsedMs} ms: ${(lastError as { message?: string } | null)?.message ?? 'transient errors'}`, { cause: lastError });
    this.name = 'TransactionGaveUp';
  }
}

/**
 * A consumer's unit of work retries transient errors this long, then its event goes back to the
 * broker (retried later; the next events are applied meanwhile). Long enough for ordinary write
 * conflicts, short against a record a dead client still locks (production: transactionLifetimeLimitSeconds 10).
 */
export const CONSUMER_TRANSACTION_GIVE_UP_MS = 3_000;
