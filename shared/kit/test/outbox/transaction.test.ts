import mongoose from 'mongoose';
import { consumeBatchesOnce, CONSUMER_TRANSACTION_GIVE_UP_MS, inTransaction, metricsText, TransactionGaveUp, transactionGaveUp, transactionRetries, useTransactionLogger, withOutbox } from '../../src';
import { envelope, TEAM, ticket } from '../bus/fixtures';
import { describeDb, startMongo, type TestMongo } from './mongo';

const counterSchema = new mongoose.Schema({ _id: String, n: Number }, { versionKey: false });
const counters = (conn: mongoose.Connection) => conn.models.Counter ?? conn.model('Counter', counterSchema, 'counters');
const retriesOf = async (db: string) => (await transactionRetries.get()).values.find((v) => v.labels.service === db)?.value ?? 0;

/** A logger that keeps its warnings. */
function recordingLogger() {
  const warnings: Array<{ fields: Record<string, unknown>; msg: string }> = [];
  const ignore = () => undefined;
  return { warnings, logger: { warn: (fields: Record<string, unknown>, msg: string) => void warnings.push({ fields, msg }), info: ignore, error: ignore, debug: ignore } as never };
}

describeDb('inTransaction: transient errors retried with backoff, logged and counted', () => {
  let mongo: TestMongo;
  let conn: mongoose.Connection;
  beforeAll(async () => {
    mongo = await startMongo();
    conn = await mongo.connect(`txn_${Math.random().toString(36).slice(2)}`);
    await counters(conn).init();
  });
  afterAll(() => mongo.close());

  it('a forced TransientTransactionError: fn runs again, a warning carries the attempt, helpdesk_transaction_retries_total moves', async () => {
    const { warnings, logger } = recordingLogger();
    useTransactionLogger(conn, logger);
    const before = await retriesOf(conn.name);
    let calls = 0;
    const result = await inTransaction(conn, async (session) => {
      calls++;
      await counters(conn).updateOne({ _id: 'forced' }, { $inc: { n: 1 } }, { upsert: true, session });
      if (calls < 3) throw new mongoose.mongo.MongoServerError({ message: 'forced transient error', codeName: 'WriteConflict', errorLabels: ['TransientTransactionError'] });
      return 'done';
    });
    expect(result).toBe('done');
    expect(calls).toBe(3);
    expect((await counters(conn).findById('forced').lean<{ n: number }>())?.n).toBe(1); // the failed attempts rolled back
    expect(await retriesOf(conn.name)).toBe(before + 2);
    expect(warnings.map((w) => w.fields.attempt)).toEqual([2, 3]);
    expect(warnings[0]).toMatchObject({ msg: 'transaction retried after a transient error', fields: { database: conn.name, err: 'forced transient error' } });
    expect(await metricsText()).toMatch(new RegExp(`helpdesk_transaction_retries_total\\{service="${conn.name}"\\} ${before + 2}`));
  });

  it('a real write conflict with an open transaction is retried (backing off) until that one ends', async () => {
    const { warnings, logger } = recordingLogger();
    useTransactionLogger(conn, logger);
    await counters(conn).create({ _id: 'contended', n: 0 });
    const before = await retriesOf(conn.name);
    // Another transaction holds a write on the document and commits 300 ms later.
    const holder = await conn.startSession();
    holder.startTransaction();
    await counters(conn).updateOne({ _id: 'contended' }, { $inc: { n: 10 } }, { session: holder });
    const t0 = Date.now();
    const released = new Promise<void>((resolve) => setTimeout(() => void holder.commitTransaction().then(() => holder.endSession()).then(resolve), 300));
    await withOutbox(conn, { teamId: TEAM, mode: 'test', requestId: null, actor: { type: 'system', id: null } }, async (session, emit) => {
      await counters(conn).updateOne({ _id: 'contended' }, { $inc: { n: 1 } }, { session });
      emit({ type: 'ticket.created', data: { ticket: ticket() } });
    });
    await released;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect((await counters(conn).findById('contended').lean<{ n: number }>())?.n).toBe(11);
    const retries = (await retriesOf(conn.name)) - before;
    expect(retries).toBeGreaterThanOrEqual(1);
    // Backing off (5 ms × 1.5ⁿ, jittered, each ≤ 500 ms): a few dozen attempts in 300 ms at most, not thousands.
    expect(retries).toBeLessThan(60);
    expect(warnings.length).toBe(retries);
    expect(warnings.at(-1)?.fields).toMatchObject({ code: 'WriteConflict', attempt: retries + 1 });
  });

  it('a consumer batch with one record a dead client still locks: the others are applied at once, that event goes back to the broker', async () => {
    const { logger } = recordingLogger();
    useTransactionLogger(conn, logger);
    await counters(conn).create([{ _id: 'held', n: 0 }, { _id: 'free-1', n: 0 }, { _id: 'free-2', n: 0 }]);
    const gaveUpBefore = (await transactionGaveUp.get()).values.find((v) => v.labels.service === conn.name)?.value ?? 0;
    // A client that died mid-transaction: its write on `held` stays until the server aborts it.
    const dead = await conn.startSession();
    dead.startTransaction();
    await counters(conn).updateOne({ _id: 'held' }, { $inc: { n: 100 } }, { session: dead });
    const batches = consumeBatchesOnce(conn, 'counter-consumer', async (events, session) => {
      for (const e of events) await counters(conn).updateOne({ _id: (e.data as { counter: string }).counter }, { $inc: { n: 1 } }, { session });
    });
    const [held, free1, free2] = ['held', 'free-1', 'free-2'].map((counter) => envelope('ticket.created', { ticket: ticket(), counter }));
    const t0 = Date.now();
    const outcomes = await Promise.allSettled([held, free1, free2].map((e) => batches.submit(e!)));
    const elapsed = Date.now() - t0;
    // Bounded: the batch's give-up, then each event alone (the held one gives up once more), not the driver's 120 s.
    expect(elapsed).toBeLessThan(4 * CONSUMER_TRANSACTION_GIVE_UP_MS);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect((outcomes[0] as PromiseRejectedResult).reason).toBeInstanceOf(TransactionGaveUp);
    expect((await counters(conn).findById('free-1').lean<{ n: number }>())?.n).toBe(1);
    expect((await counters(conn).findById('free-2').lean<{ n: number }>())?.n).toBe(1);
    expect((await transactionGaveUp.get()).values.find((v) => v.labels.service === conn.name)?.value).toBeGreaterThan(gaveUpBefore);
    // The lock goes (the server aborts the dead client's transaction); the broker's redelivery applies it once.
    await dead.abortTransaction();
    await dead.endSession();
    await batches.submit(held!);
    expect((await counters(conn).findById('held').lean<{ n: number }>())?.n).toBe(1);
  }, 30_000);
});
