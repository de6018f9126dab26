/**
 * Conformance: MongoDB 8.0's `bulkWrite` command (the driver's `client.bulkWrite`): writes to several
 * collections in one command, in order, in or out of a transaction, with the counts and the errors a
 * real server gives. Against a real MongoDB (MONGO_URL) this needs 8.0 and a replica set.
 */
import { MongoClient, MongoClientBulkWriteError, MongoServerError, type AnyClientBulkWriteModel, type ClientBulkWriteOptions, type Db } from 'mongodb';
import { startTarget, type Target } from './target';

let target: Target;
let a: MongoClient;
let b: MongoClient;
let db: Db;
let ns: (coll: string) => string;

beforeAll(async () => {
  target = await startTarget();
  a = await MongoClient.connect(target.uri('conf_bulk'));
  b = await MongoClient.connect(target.uri('conf_bulk'));
  db = a.db(target.dbName('conf_bulk'));
  ns = (coll) => `${target.dbName('conf_bulk')}.${coll}`;
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await target?.close();
});

/** The driver's client.bulkWrite with rows of any shape (string and number ids). */
const bulk = (models: AnyClientBulkWriteModel<any>[], opts?: ClientBulkWriteOptions) => a.bulkWrite(models, opts);

async function fresh(...names: string[]) {
  for (const name of names) {
    await db.collection(name).drop().catch(() => undefined);
    await db.createCollection(name);
  }
}

describe('bulkWrite across collections', () => {
  it('applies inserts, updates, upserts and deletes to several collections in order, with the counts', async () => {
    await fresh('bw_tickets', 'bw_messages');
    await db.collection<any>('bw_tickets').insertOne({ _id: 'old' as any, n: 1 });
    const models: AnyClientBulkWriteModel<any>[] = [
      { namespace: ns('bw_tickets'), name: 'insertOne', document: { _id: 't1', n: 0 } },
      { namespace: ns('bw_messages'), name: 'insertOne', document: { _id: 'm1', ticketId: 't1' } },
      { namespace: ns('bw_tickets'), name: 'updateOne', filter: { _id: 't1' }, update: { $inc: { n: 1 } } },
      { namespace: ns('bw_tickets'), name: 'updateOne', filter: { _id: 'none' }, update: { $set: { n: 9 } } },
      { namespace: ns('bw_tickets'), name: 'updateOne', filter: { _id: 'up' }, update: { $set: { n: 5 } }, upsert: true },
      { namespace: ns('bw_tickets'), name: 'deleteOne', filter: { _id: 'old' } },
    ];
    const r = await bulk(models);
    expect({ inserted: r.insertedCount, matched: r.matchedCount, modified: r.modifiedCount, upserted: r.upsertedCount, deleted: r.deletedCount }).toEqual({
      inserted: 2,
      matched: 1,
      modified: 1,
      upserted: 1,
      deleted: 1,
    });
    expect(await db.collection<any>('bw_tickets').find().sort({ _id: 1 }).toArray()).toEqual([
      { _id: 't1', n: 1 },
      { _id: 'up', n: 5 },
    ]);
    expect(await db.collection<any>('bw_messages').find().toArray()).toEqual([{ _id: 'm1', ticketId: 't1' }]);
  });

  it('verbose results name each write', async () => {
    await fresh('bw_verbose');
    const r = await bulk(
      [
        { namespace: ns('bw_verbose'), name: 'insertOne', document: { _id: 1 } },
        { namespace: ns('bw_verbose'), name: 'updateOne', filter: { _id: 2 }, update: { $set: { v: 1 } }, upsert: true },
      ],
      { verboseResults: true },
    );
    expect(r.insertResults?.get(0)?.insertedId).toBe(1);
    expect(r.updateResults?.get(1)).toMatchObject({ modifiedCount: 0, upsertedId: 2, didUpsert: true });
  });

  it('an ordered bulk stops at its first write error and reports it by index; the writes before it stay', async () => {
    await fresh('bw_dup', 'bw_other');
    await db.collection<any>('bw_dup').insertOne({ _id: 'taken' as any });
    const err = await bulk([
      { namespace: ns('bw_other'), name: 'insertOne', document: { _id: 'before' } },
      { namespace: ns('bw_dup'), name: 'insertOne', document: { _id: 'taken' } },
      { namespace: ns('bw_other'), name: 'insertOne', document: { _id: 'after' } },
    ]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MongoClientBulkWriteError);
    const e = err as MongoClientBulkWriteError;
    expect([...e.writeErrors.keys()]).toEqual([1]);
    expect(e.writeErrors.get(1)?.code).toBe(11000);
    expect(await db.collection<any>('bw_other').find().toArray()).toEqual([{ _id: 'before' }]);
  });

  it('an unordered bulk goes on after a write error', async () => {
    await fresh('bw_unordered');
    await db.collection<any>('bw_unordered').insertOne({ _id: 'taken' as any });
    const err = (await bulk(
      [
        { namespace: ns('bw_unordered'), name: 'insertOne', document: { _id: 'taken' } },
        { namespace: ns('bw_unordered'), name: 'insertOne', document: { _id: 'next' } },
      ],
      { ordered: false },
    ).catch((e: unknown) => e)) as MongoClientBulkWriteError;
    expect([...err.writeErrors.keys()]).toEqual([0]);
    expect(await db.collection<any>('bw_unordered').countDocuments({ _id: 'next' as any })).toBe(1);
  });

  it('in a transaction: nothing is visible to others before the commit, everything after; an abort leaves nothing', async () => {
    await fresh('bw_tx_a', 'bw_tx_b');
    const write = (id: string) => [
      { namespace: ns('bw_tx_a'), name: 'insertOne' as const, document: { _id: id } },
      { namespace: ns('bw_tx_b'), name: 'insertOne' as const, document: { _id: id } },
    ];
    const other = b.db(target.dbName('conf_bulk'));
    const s = a.startSession();
    try {
      s.startTransaction();
      await bulk(write('kept'), { session: s });
      expect(await db.collection<any>('bw_tx_a').countDocuments({}, { session: s })).toBe(1);
      expect(await other.collection<any>('bw_tx_a').countDocuments()).toBe(0);
      expect(await other.collection<any>('bw_tx_b').countDocuments()).toBe(0);
      await s.commitTransaction();
      s.startTransaction();
      await bulk(write('dropped'), { session: s });
      await s.abortTransaction();
    } finally {
      await s.endSession();
    }
    expect(await other.collection<any>('bw_tx_a').find().toArray()).toEqual([{ _id: 'kept' }]);
    expect(await other.collection<any>('bw_tx_b').find().toArray()).toEqual([{ _id: 'kept' }]);
  });

  it('a write error in a transaction aborts it', async () => {
    await fresh('bw_tx_err');
    await db.collection<any>('bw_tx_err').insertOne({ _id: 'taken' as any });
    const s = a.startSession();
    try {
      s.startTransaction();
      await db.collection<any>('bw_tx_err').insertOne({ _id: 'first' as any }, { session: s });
      const err = await bulk([{ namespace: ns('bw_tx_err'), name: 'insertOne', document: { _id: 'taken' } }], { session: s }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MongoClientBulkWriteError);
      const commit = await s.commitTransaction().catch((e: unknown) => e);
      expect(commit).toBeInstanceOf(MongoServerError);
    } finally {
      await s.endSession();
    }
    expect(await db.collection<any>('bw_tx_err').countDocuments({ _id: 'first' as any })).toBe(0);
  });
});
