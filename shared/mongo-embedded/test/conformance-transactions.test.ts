/**
 * Conformance: transactions, isolation and per-command atomicity under concurrency.
 * Against a real MongoDB (MONGO_URL) this needs a replica set.
 */
import { Db, MongoClient, MongoServerError } from 'mongodb';
import { startTarget, Target } from './target';

let target: Target;
let a: MongoClient;
let b: MongoClient;
let dbA: Db;
let dbB: Db;

beforeAll(async () => {
  target = await startTarget();
  a = await MongoClient.connect(target.uri('conf_txn'), { maxPoolSize: 100 });
  b = await MongoClient.connect(target.uri('conf_txn'));
  dbA = a.db(target.dbName('conf_txn'));
  dbB = b.db(target.dbName('conf_txn'));
});

afterAll(async () => {
  await a?.close();
  await b?.close();
  await target?.close();
});

async function fresh(name: string) {
  await dbA.collection(name).drop().catch(() => undefined);
  await dbA.createCollection(name);
  return dbA.collection(name);
}

describe('multi-document transactions', () => {
  it('commit makes all writes visible at once; other clients see none before', async () => {
    const changes = await fresh('changes');
    const outbox = await fresh('outbox');
    const s = a.startSession();
    s.startTransaction();
    await changes.insertOne({ _id: 'c1' as any, v: 1 }, { session: s });
    await outbox.insertOne({ _id: 'e1' as any, change: 'c1' }, { session: s });
    await changes.updateOne({ _id: 'c1' as any }, { $set: { v: 2 } }, { session: s });
    // Inside: own writes are visible.
    expect(await changes.findOne({ _id: 'c1' as any }, { session: s })).toEqual({ _id: 'c1', v: 2 });
    expect(await outbox.countDocuments({}, { session: s })).toBe(1);
    // Outside (another client): nothing yet.
    expect(await dbB.collection('changes').findOne({ _id: 'c1' as any })).toBeNull();
    expect(await dbB.collection('outbox').countDocuments()).toBe(0);
    expect(await dbB.collection('changes').aggregate([{ $count: 'n' }]).toArray()).toEqual([]);
    await s.commitTransaction();
    await s.endSession();
    expect(await dbB.collection('changes').findOne({ _id: 'c1' as any })).toEqual({ _id: 'c1', v: 2 });
    expect(await dbB.collection('outbox').countDocuments()).toBe(1);
  });

  it('abort leaves nothing, including deletes and updates of existing documents', async () => {
    const c = await fresh('abortme');
    await c.insertMany([{ _id: 1 as any, v: 'keep' }, { _id: 2 as any, v: 'keep' }]);
    const s = a.startSession();
    s.startTransaction();
    await c.deleteOne({ _id: 1 as any }, { session: s });
    await c.updateOne({ _id: 2 as any }, { $set: { v: 'changed' } }, { session: s });
    await c.insertOne({ _id: 3 as any }, { session: s });
    expect(await c.countDocuments({}, { session: s })).toBe(2);
    await s.abortTransaction();
    await s.endSession();
    expect(await c.find().sort({ _id: 1 }).toArray()).toEqual([{ _id: 1, v: 'keep' }, { _id: 2, v: 'keep' }]);
  });

  it('withTransaction commits, and retries after a WriteConflict with another transaction', async () => {
    const c = await fresh('conflict');
    await c.insertOne({ _id: 'x' as any, n: 0 });
    const s1 = a.startSession();
    s1.startTransaction();
    await c.updateOne({ _id: 'x' as any }, { $inc: { n: 1 } }, { session: s1 });

    // A second transaction on the same document conflicts.
    const s2 = b.startSession();
    s2.startTransaction();
    const e = await dbB
      .collection('conflict')
      .updateOne({ _id: 'x' as any }, { $inc: { n: 10 } }, { session: s2 })
      .catch((x) => x);
    expect(e).toBeInstanceOf(MongoServerError);
    expect(e.code).toBe(112);
    expect(e.hasErrorLabel('TransientTransactionError')).toBe(true);
    await s2.abortTransaction().catch(() => undefined);
    await s2.endSession();

    // withTransaction keeps retrying until the first transaction commits.
    let attempts = 0;
    const s3 = b.startSession();
    const retried = s3.withTransaction(async (session) => {
      attempts++;
      await dbB.collection('conflict').updateOne({ _id: 'x' as any }, { $inc: { n: 100 } }, { session });
    });
    await new Promise((r) => setTimeout(r, 150));
    await s1.commitTransaction();
    await s1.endSession();
    await retried;
    await s3.endSession();
    expect(attempts).toBeGreaterThan(1);
    expect((await c.findOne({ _id: 'x' as any }))!.n).toBe(101);
  });

  it('rejects commands that MongoDB does not allow in a transaction', async () => {
    const c = await fresh('notallowed');
    await c.insertOne({ a: 1 });
    const s = a.startSession();
    s.startTransaction();
    await c.insertOne({ a: 2 }, { session: s });
    const e = await dbA.command({ count: 'notallowed' }, { session: s }).catch((x) => x);
    expect(e.code).toBe(263);
    await s.abortTransaction().catch(() => undefined);
    await s.endSession();
    expect(await c.countDocuments()).toBe(1);
  });

  it('writing a document changed by someone else after the transaction began is a WriteConflict', async () => {
    const c = await fresh('snapshot');
    await c.insertMany([{ _id: 'x' as any, n: 0 }, { _id: 'y' as any, n: 0 }]);
    const s = a.startSession();
    s.startTransaction();
    await c.updateOne({ _id: 'y' as any }, { $inc: { n: 1 } }, { session: s });
    await dbB.collection('snapshot').updateOne({ _id: 'x' as any }, { $set: { n: 5 } });
    const e = await c.updateOne({ _id: 'x' as any }, { $set: { n: 1 } }, { session: s }).catch((x) => x);
    expect(e.code).toBe(112);
    expect(e.hasErrorLabel('TransientTransactionError')).toBe(true);
    await s.abortTransaction().catch(() => undefined);
    await s.endSession();
    expect(await c.find().sort({ _id: 1 }).toArray()).toEqual([{ _id: 'x', n: 5 }, { _id: 'y', n: 0 }]);
  });

  it('a write outside a transaction waits for the transaction that holds the document', async () => {
    const c = await fresh('waiter');
    await c.insertOne({ _id: 1 as any, n: 0 });
    const s = a.startSession();
    s.startTransaction();
    await c.updateOne({ _id: 1 as any }, { $inc: { n: 1 } }, { session: s });
    let outsideDone = false;
    const outside = dbB
      .collection('waiter')
      .updateOne({ _id: 1 as any }, { $inc: { n: 10 } })
      .then(() => (outsideDone = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(outsideDone).toBe(false);
    await s.commitTransaction();
    await s.endSession();
    await outside;
    expect((await c.findOne({ _id: 1 as any }))!.n).toBe(11);
  });

  it('a unique key taken inside a live transaction blocks others until commit, then fails as duplicate', async () => {
    const c = await fresh('txuniq');
    await c.createIndex({ email: 1 }, { unique: true });
    const s = a.startSession();
    s.startTransaction();
    await c.insertOne({ email: 'a@x' }, { session: s });
    const outside = dbB
      .collection('txuniq')
      .insertOne({ email: 'a@x' })
      .then(
        () => 'inserted',
        (e) => e.code,
      );
    await new Promise((r) => setTimeout(r, 100));
    await s.commitTransaction();
    await s.endSession();
    expect(await outside).toBe(11000);
    expect(await c.countDocuments()).toBe(1);
  });
});

describe('atomicity under concurrency', () => {
  it('100 concurrent findOneAndUpdate($inc) end with the exact total', async () => {
    const c = await fresh('counter');
    await c.insertOne({ _id: 'k' as any, n: 0 });
    const clients = await Promise.all(Array.from({ length: 4 }, () => MongoClient.connect(target.uri('conf_txn'), { maxPoolSize: 30 })));
    try {
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          clients[i % clients.length]
            .db(target.dbName('conf_txn'))
            .collection('counter')
            .findOneAndUpdate({ _id: 'k' as any }, { $inc: { n: 1 } }, { returnDocument: 'after' }),
        ),
      );
      const seen = results.map((r) => r!.n).sort((x, y) => x - y);
      expect(seen).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
      expect((await c.findOne({ _id: 'k' as any }))!.n).toBe(100);
    } finally {
      await Promise.all(clients.map((x) => x.close()));
    }
  });

  it('a unique index holds under concurrent inserts', async () => {
    const c = await fresh('concuniq');
    await c.createIndex({ email: 1 }, { unique: true });
    const results = await Promise.allSettled(Array.from({ length: 50 }, (_, i) => (i % 2 ? dbA : dbB).collection('concuniq').insertOne({ email: 'same@x', i })));
    const ok = results.filter((r) => r.status === 'fulfilled');
    const dup = results.filter((r) => r.status === 'rejected' && (r.reason as MongoServerError).code === 11000);
    expect(ok).toHaveLength(1);
    expect(dup).toHaveLength(49);
    expect(await c.countDocuments()).toBe(1);
  });
});
