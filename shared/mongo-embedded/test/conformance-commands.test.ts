/**
 * Conformance: commands and reply shapes, pinned to MongoDB's. Runs against the embedded server,
 * or against a real MongoDB when MONGO_URL is set.
 */
import * as net from 'node:net';
import { deserialize, serialize } from 'bson';
import { Db, Long, MongoClient, MongoServerError, ObjectId } from 'mongodb';
import { REAL, Target, useTargetDb } from './target';

let target: Target;
let client: MongoClient;
let db: Db;
useTargetDb('conf_cmds', (t) => void ({ target, client, db } = t));

async function fresh(name: string) {
  await db.collection(name).drop().catch(() => undefined);
  return db.collection(name);
}

/** Runs a command keeping int64 values as Long (cursor ids). */
const cmdL = (c: Record<string, unknown>) => db.command(c, { promoteLongs: false });

async function serverError(p: Promise<unknown>): Promise<MongoServerError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof MongoServerError) return e;
    throw e;
  }
  throw new Error('expected a server error');
}

describe('handshake and server info', () => {
  it('answers hello as a writable replica-set primary', async () => {
    const r = await db.admin().command({ hello: 1 });
    expect(r.ok).toBe(1);
    expect(r.isWritablePrimary).toBe(true);
    expect(typeof r.setName).toBe('string');
    expect(r.hosts).toContain(r.me);
    expect(r.primary).toBe(r.me);
    expect(r.logicalSessionTimeoutMinutes).toBeGreaterThan(0);
    expect(r.maxWireVersion).toBeGreaterThanOrEqual(21);
    expect(r.maxBsonObjectSize).toBe(16 * 1024 * 1024);
  });

  it('answers the legacy OP_QUERY isMaster handshake on admin.$cmd', async () => {
    // Raw sockets go to the TCP listener (target.uri may be the in-process socket URL).
    const url = new URL(target.embedded?.uri('x') ?? target.uri('x'));
    const reply = await new Promise<any>((resolve, reject) => {
      const sock = net.connect(Number(url.port || 27017), url.hostname.replace(/^\[|\]$/g, ''));
      const q = serialize({ isMaster: 1, client: { driver: { name: 'raw', version: '0' } } });
      const ns = Buffer.from('admin.$cmd\0');
      const msg = Buffer.alloc(16 + 4 + ns.length + 8 + q.length);
      msg.writeInt32LE(msg.length, 0);
      msg.writeInt32LE(7, 4);
      msg.writeInt32LE(0, 8);
      msg.writeInt32LE(2004, 12);
      msg.writeInt32LE(0, 16);
      ns.copy(msg, 20);
      msg.writeInt32LE(0, 20 + ns.length);
      msg.writeInt32LE(-1, 24 + ns.length);
      Buffer.from(q).copy(msg, 28 + ns.length);
      let buf = Buffer.alloc(0);
      sock.on('data', (d) => {
        buf = Buffer.concat([buf, d]);
        if (buf.length >= 4 && buf.length >= buf.readInt32LE(0)) {
          sock.destroy();
          expect(buf.readInt32LE(12)).toBe(1); // OP_REPLY
          expect(buf.readInt32LE(8)).toBe(7); // responseTo
          expect(buf.readInt32LE(32)).toBe(1); // numberReturned
          resolve(deserialize(buf.subarray(36)));
        }
      });
      sock.on('error', reject);
      sock.write(msg);
    });
    expect(reply.ok).toBe(1);
    expect(reply.ismaster).toBe(true);
    expect(reply.maxWireVersion).toBeGreaterThanOrEqual(21);
  });

  it('answers ping and buildInfo', async () => {
    expect(await db.command({ ping: 1 })).toMatchObject({ ok: 1 });
    const b = await db.admin().command({ buildInfo: 1 });
    expect(b.ok).toBe(1);
    expect(typeof b.version).toBe('string');
    expect(Array.isArray(b.versionArray)).toBe(true);
  });

  it('answers an unknown command with CommandNotFound (59) naming it', async () => {
    const e = await serverError(db.command({ frobnicate: 1 }));
    expect(e.code).toBe(59);
    expect(e.codeName).toBe('CommandNotFound');
    expect(e.message).toContain('frobnicate');
  });

  it('answers endSessions', async () => {
    const s = client.startSession();
    await db.collection('x').findOne({}, { session: s });
    await s.endSession();
    expect(await db.admin().command({ endSessions: [s.id] })).toMatchObject({ ok: 1 });
  });
});

describe('insert / find / getMore / killCursors', () => {
  it('insert replies {n, ok} and reports duplicate _id as a write error', async () => {
    const c = await fresh('ins');
    const r = await db.command({ insert: 'ins', documents: [{ _id: 1, a: 1 }, { _id: 2, a: 2 }] });
    expect(r).toEqual({ n: 2, ok: 1 });
    const ordered = await db.command({ insert: 'ins', documents: [{ _id: 3 }, { _id: 1 }, { _id: 4 }] });
    expect(ordered.n).toBe(1);
    expect(ordered.writeErrors).toHaveLength(1);
    expect(ordered.writeErrors[0]).toMatchObject({ index: 1, code: 11000, keyPattern: { _id: 1 }, keyValue: { _id: 1 } });
    const unordered = await db.command({ insert: 'ins', ordered: false, documents: [{ _id: 5 }, { _id: 1 }, { _id: 6 }, { _id: 2 }] });
    expect(unordered.n).toBe(2);
    expect(unordered.writeErrors.map((w: any) => w.index)).toEqual([1, 3]);
    expect(await c.countDocuments()).toBe(5);
    const e = await serverError(c.insertOne({ _id: 1 as any }));
    expect(e.code).toBe(11000);
  });

  it('find supports filter, projection, sort, skip, limit and batching with getMore', async () => {
    const c = await fresh('items');
    await c.insertMany(Array.from({ length: 250 }, (_, i) => ({ _id: i as any, n: i, odd: i % 2 === 1, tag: `t${i % 5}`, nested: { v: i } })));
    const first = await cmdL({ find: 'items', filter: { odd: true }, sort: { n: -1 }, projection: { n: 1, _id: 0 }, batchSize: 10 });
    expect(first.ok).toBe(1);
    expect(first.cursor.ns).toBe(`${db.databaseName}.items`);
    expect(first.cursor.firstBatch).toHaveLength(10);
    expect(first.cursor.firstBatch[0]).toEqual({ n: 249 });
    expect(first.cursor.id).toBeInstanceOf(Long);
    expect(first.cursor.id.isZero()).toBe(false);
    const more = await cmdL({ getMore: first.cursor.id, collection: 'items', batchSize: 20 });
    expect(more.cursor.nextBatch).toHaveLength(20);
    expect(more.cursor.nextBatch[0]).toEqual({ n: 229 });
    const killed = await db.command({ killCursors: 'items', cursors: [first.cursor.id] });
    expect(killed.ok).toBe(1);
    expect(killed.cursorsKilled.map(String)).toEqual([String(first.cursor.id)]);
    const gone = await serverError(db.command({ getMore: first.cursor.id, collection: 'items' }));
    expect(gone.code).toBe(43);

    const all = await c.find({ tag: 't1' }).sort({ n: 1 }).skip(2).limit(5).toArray();
    expect(all.map((d) => d.n)).toEqual([11, 16, 21, 26, 31]);
    const viaDriver = await c.find({}, { batchSize: 7 }).toArray();
    expect(viaDriver).toHaveLength(250);
    const single = await cmdL({ find: 'items', filter: {}, limit: 3, singleBatch: true });
    expect(single.cursor.firstBatch).toHaveLength(3);
    expect(single.cursor.id.isZero()).toBe(true);
    expect(await c.findOne({ 'nested.v': 42 }, { projection: { nested: 1 } })).toEqual({ _id: 42, nested: { v: 42 } });
    expect(await c.countDocuments({ n: { $gte: 100, $lt: 110 }, tag: { $in: ['t0', 't1'] } })).toBe(4);
  });

  it('counts and simple equality finds answer as the general path does (the shortcuts of docs/adr/0019)', async () => {
    const c = await fresh('counted');
    await c.insertMany(Array.from({ length: 30 }, (_, i) => ({ _id: i, team: i % 3 === 0 ? 'a' : 'b', tags: i % 2 ? ['x'] : ['y'], secret: `s${i}`, n: i })) as never[]);
    expect(await c.countDocuments({ team: 'a' })).toBe(10);
    expect(await c.countDocuments({ team: 'nobody' })).toBe(0);
    expect(await c.countDocuments({ team: 'a', tags: 'x' })).toBe(5);
    const group = (acc: unknown, id: unknown = null) => c.aggregate([{ $match: { team: 'a' } }, { $group: { _id: id, total: acc } }]).toArray();
    expect(await group({ $sum: 1 })).toEqual([{ _id: null, total: 10 }]);
    expect(await group({ $sum: 1 }, 'all')).toEqual([{ _id: 'all', total: 10 }]);
    expect(await group({ $sum: 2 })).toEqual([{ _id: null, total: 20 }]);
    expect(await group({ $sum: '$n' })).toEqual([{ _id: null, total: 135 }]);
    expect(await c.aggregate([{ $match: { team: 'nobody' } }, { $group: { _id: 1, n: { $sum: 1 } } }]).toArray()).toEqual([]);
    const page = await c.find({ team: 'b', tags: { $in: ['x'] } }, { projection: { secret: 0 } }).sort({ n: -1 }).limit(2).toArray();
    expect(page).toEqual([{ _id: 29, team: 'b', tags: ['x'], n: 29 }, { _id: 25, team: 'b', tags: ['x'], n: 25 }]);
    expect(await c.findOne({ team: 'b', tags: 'y' }, { projection: { n: 1, _id: 0 } })).toEqual({ n: 2 });
    // Answered by an index lookup alone, and inside a transaction whose own writes are not indexed yet.
    await c.createIndex({ team: 1, tags: 1 });
    expect(await c.countDocuments({ team: 'a', tags: 'x' })).toBe(5);
    expect(await c.countDocuments({ team: 'a', tags: { $in: ['x', 'y'] } })).toBe(10);
    expect((await c.find({ team: 'b', tags: 'y' }).toArray()).map((d) => d.n)).toEqual([2, 4, 8, 10, 14, 16, 20, 22, 26, 28]);
    const session = client.startSession();
    try {
      session.startTransaction();
      await c.updateOne({ team: 'a', tags: 'x' }, { $set: { team: 'z' } }, { session });
      await c.insertOne({ _id: 100, team: 'a', tags: ['x'] } as never, { session });
      expect(await c.countDocuments({ team: 'a', tags: 'x' }, { session })).toBe(5);
      expect(await c.countDocuments({ team: 'z', tags: 'x' }, { session })).toBe(1);
      await session.abortTransaction();
    } finally {
      await session.endSession();
    }
    expect(await c.countDocuments({ team: 'a', tags: 'x' })).toBe(5);
  });

  it('find on a missing collection returns an empty cursor', async () => {
    const r = await cmdL({ find: 'nope_missing', filter: {} });
    expect(r.cursor.firstBatch).toEqual([]);
    expect(r.cursor.id.isZero()).toBe(true);
  });
});

describe('update / delete / findAndModify', () => {
  it('update applies operators, multi, upsert and arrayFilters with MongoDB reply shapes', async () => {
    const c = await fresh('upd');
    await c.insertMany([
      { _id: 1 as any, a: 1, grades: [80, 95, 100], items: [{ k: 'x', q: 1 }, { k: 'y', q: 2 }] },
      { _id: 2 as any, a: 1, grades: [90], items: [] },
      { _id: 3 as any, a: 2, grades: [], items: [] },
    ]);
    const one = await db.command({ update: 'upd', updates: [{ q: { a: 1 }, u: { $set: { b: true } } }] });
    expect(one).toEqual({ n: 1, nModified: 1, ok: 1 });
    const multi = await db.command({ update: 'upd', updates: [{ q: { a: 1 }, u: { $inc: { a: 10 } }, multi: true }] });
    expect(multi).toEqual({ n: 2, nModified: 2, ok: 1 });
    const noop = await db.command({ update: 'upd', updates: [{ q: { _id: 3 }, u: { $set: { a: 2 } } }] });
    expect(noop).toEqual({ n: 1, nModified: 0, ok: 1 });
    const ups = await db.command({ update: 'upd', updates: [{ q: { _id: 9, k: 'new' }, u: { $set: { v: 1 }, $setOnInsert: { created: true } }, upsert: true }] });
    expect(ups).toEqual({ n: 1, nModified: 0, upserted: [{ index: 0, _id: 9 }], ok: 1 });
    expect(await c.findOne({ _id: 9 as any })).toEqual({ _id: 9, k: 'new', v: 1, created: true });
    const upsertedOid = await c.updateOne({ name: 'zed' }, { $set: { n: 1 } }, { upsert: true });
    expect(upsertedOid.upsertedId).toBeInstanceOf(ObjectId);
    const af = await c.updateOne({ _id: 1 as any }, { $set: { 'grades.$[g]': 0 } }, { arrayFilters: [{ g: { $gte: 95 } }] });
    expect(af.modifiedCount).toBe(1);
    expect((await c.findOne({ _id: 1 as any }))!.grades).toEqual([80, 0, 0]);
    await c.updateOne({ _id: 1 as any, 'items.k': 'y' }, { $set: { 'items.$.q': 9 } });
    expect((await c.findOne({ _id: 1 as any }))!.items).toEqual([{ k: 'x', q: 1 }, { k: 'y', q: 9 }]);
    await c.updateOne({ _id: 2 as any }, { $push: { grades: { $each: [1, 2] } }, $addToSet: { tags: 'a' }, $unset: { b: '' } } as any);
    expect(await c.findOne({ _id: 2 as any })).toEqual({ _id: 2, a: 11, grades: [90, 1, 2], items: [], tags: ['a'] });
    const repl = await c.replaceOne({ _id: 3 as any }, { replaced: true });
    expect(repl.modifiedCount).toBe(1);
    expect(await c.findOne({ _id: 3 as any })).toEqual({ _id: 3, replaced: true });
    const immut = await serverError(c.updateOne({ _id: 3 as any }, { $set: { _id: 4 } }));
    expect(immut.code).toBe(66);
    const bad = await db.command({ update: 'upd', updates: [{ q: {}, u: { $frob: { a: 1 } } }] });
    expect(bad).toMatchObject({ n: 0, nModified: 0, ok: 1 });
    expect(bad.writeErrors[0]).toMatchObject({ index: 0, code: 9 });
    const pipe = await c.updateOne({ _id: 3 as any }, [{ $set: { copy: '$replaced' } }]);
    expect(pipe.modifiedCount).toBe(1);
    expect((await c.findOne({ _id: 3 as any }))!.copy).toBe(true);
  });

  it('delete honours limit 1 and 0', async () => {
    const c = await fresh('del');
    await c.insertMany([{ k: 1 }, { k: 1 }, { k: 1 }, { k: 2 }]);
    expect(await db.command({ delete: 'del', deletes: [{ q: { k: 1 }, limit: 1 }] })).toEqual({ n: 1, ok: 1 });
    expect(await db.command({ delete: 'del', deletes: [{ q: { k: 1 }, limit: 0 }] })).toEqual({ n: 2, ok: 1 });
    expect(await db.command({ delete: 'del', deletes: [{ q: { k: 7 }, limit: 0 }] })).toEqual({ n: 0, ok: 1 });
    expect(await c.countDocuments()).toBe(1);
  });

  it('findAndModify supports new, upsert, remove, fields and sort', async () => {
    const c = await fresh('fam');
    await c.insertMany([{ _id: 1 as any, q: 1, v: 'a' }, { _id: 2 as any, q: 1, v: 'b' }]);
    const before = await db.command({ findAndModify: 'fam', query: { q: 1 }, sort: { _id: -1 }, update: { $set: { v: 'B' } } });
    expect(before).toEqual({ lastErrorObject: { n: 1, updatedExisting: true }, value: { _id: 2, q: 1, v: 'b' }, ok: 1 });
    const after = await db.command({ findAndModify: 'fam', query: { _id: 2 }, update: { $set: { v: 'C' } }, new: true, fields: { v: 1, _id: 0 } });
    expect(after.value).toEqual({ v: 'C' });
    const up = await db.command({ findAndModify: 'fam', query: { _id: 5 }, update: { $set: { v: 'u' } }, upsert: true, new: true });
    expect(up).toEqual({ lastErrorObject: { n: 1, updatedExisting: false, upserted: 5 }, value: { _id: 5, v: 'u' }, ok: 1 });
    const none = await db.command({ findAndModify: 'fam', query: { _id: 99 }, update: { $set: { v: 'x' } } });
    expect(none).toEqual({ lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 });
    const rm = await db.command({ findAndModify: 'fam', query: { _id: 1 }, remove: true });
    expect(rm).toEqual({ lastErrorObject: { n: 1 }, value: { _id: 1, q: 1, v: 'a' }, ok: 1 });
    expect(await c.countDocuments()).toBe(2);
    const viaDriver = await c.findOneAndUpdate({ _id: 2 as any }, { $inc: { n: 1 } }, { returnDocument: 'after' });
    expect(viaDriver).toEqual({ _id: 2, q: 1, v: 'C', n: 1 });
  });
});

describe('aggregate / count / distinct', () => {
  beforeAll(async () => {
    const orders = await fresh('orders');
    await orders.insertMany([
      { _id: 1 as any, cust: 'a', items: ['x', 'y'], total: 10 },
      { _id: 2 as any, cust: 'a', items: ['x'], total: 5 },
      { _id: 3 as any, cust: 'b', items: [], total: 7 },
      { _id: 4 as any, cust: 'c', items: ['z'], total: 1 },
    ]);
    const cust = await fresh('customers');
    await cust.insertMany([
      { _id: 'a' as any, name: 'Ann' },
      { _id: 'b' as any, name: 'Bob' },
    ]);
  });

  it('runs $match $group $sort $skip $limit $project $addFields $set $unwind $count $facet $lookup', async () => {
    const o = db.collection('orders');
    expect(
      await o
        .aggregate([{ $match: { total: { $gt: 1 } } }, { $group: { _id: '$cust', sum: { $sum: '$total' }, n: { $sum: 1 } } }, { $sort: { sum: -1 } }])
        .toArray(),
    ).toEqual([
      { _id: 'a', sum: 15, n: 2 },
      { _id: 'b', sum: 7, n: 1 },
    ]);
    expect(await o.aggregate([{ $sort: { total: 1 } }, { $skip: 1 }, { $limit: 2 }, { $project: { _id: 1 } }]).toArray()).toEqual([{ _id: 2 }, { _id: 3 }]);
    expect(
      await o
        .aggregate([{ $match: { _id: 1 } }, { $addFields: { double: { $multiply: ['$total', 2] } } }, { $set: { cust: { $toUpper: '$cust' } } }, { $project: { items: 0 } }])
        .toArray(),
    ).toEqual([{ _id: 1, cust: 'A', total: 10, double: 20 }]);
    expect(await o.aggregate([{ $unwind: '$items' }, { $count: 'n' }]).toArray()).toEqual([{ n: 4 }]);
    const [facet] = await o
      .aggregate([{ $facet: { big: [{ $match: { total: { $gte: 7 } } }, { $count: 'n' }], custs: [{ $group: { _id: '$cust' } }, { $sort: { _id: 1 } }] } }])
      .toArray();
    expect(facet).toEqual({ big: [{ n: 2 }], custs: [{ _id: 'a' }, { _id: 'b' }, { _id: 'c' }] });
    const joined = await o
      .aggregate([{ $match: { _id: { $in: [1, 3, 4] } } }, { $lookup: { from: 'customers', localField: 'cust', foreignField: '_id', as: 'c' } }, { $project: { cust: 1, name: { $first: '$c.name' } } }, { $sort: { _id: 1 } }])
      .toArray();
    expect(joined).toEqual([{ _id: 1, cust: 'a', name: 'Ann' }, { _id: 3, cust: 'b', name: 'Bob' }, { _id: 4, cust: 'c' }]);
    // The stored documents were not changed by $set/$addFields.
    expect(await o.findOne({ _id: 1 as any })).toEqual({ _id: 1, cust: 'a', items: ['x', 'y'], total: 10 });
  });

  it('batches aggregate cursors', async () => {
    const c = await fresh('aggbatch');
    await c.insertMany(Array.from({ length: 30 }, (_, i) => ({ i })));
    const r = await cmdL({ aggregate: 'aggbatch', pipeline: [{ $sort: { i: 1 } }], cursor: { batchSize: 4 } });
    expect(r.cursor.firstBatch).toHaveLength(4);
    expect(r.cursor.id.isZero()).toBe(false);
    const m = await cmdL({ getMore: r.cursor.id, collection: 'aggbatch' });
    expect(m.cursor.nextBatch).toHaveLength(26);
    expect(m.cursor.id.isZero()).toBe(true);
    expect(await c.aggregate([{ $match: {} }], { batchSize: 3 }).toArray()).toHaveLength(30);
    const e = await serverError(db.command({ aggregate: 'aggbatch', pipeline: [{ $frob: {} }], cursor: {} }));
    expect(e.code).toBe(40324);
  });

  it('count and distinct', async () => {
    expect(await db.command({ count: 'orders' })).toEqual({ n: 4, ok: 1 });
    expect(await db.command({ count: 'orders', query: { cust: 'a' } })).toEqual({ n: 2, ok: 1 });
    expect((await db.command({ count: 'orders', query: {}, skip: 1, limit: 2 })).n).toBe(2);
    const d = await db.command({ distinct: 'orders', key: 'items' });
    expect(d.ok).toBe(1);
    expect([...d.values].sort()).toEqual(['x', 'y', 'z']);
    expect((await db.collection('orders').distinct('cust', { total: { $gt: 4 } })).sort()).toEqual(['a', 'b']);
    expect(await db.collection('orders').estimatedDocumentCount()).toBe(4);
  });
});

describe('indexes and namespaces', () => {
  it('createIndexes / listIndexes / dropIndexes reply like MongoDB', async () => {
    await db.collection('ix').drop().catch(() => undefined);
    const r = await db.command({ createIndexes: 'ix', indexes: [{ key: { a: 1 }, name: 'a_1', unique: true }, { key: { b: 1, c: -1 }, name: 'b_1_c_-1' }] });
    expect(r).toMatchObject({ numIndexesBefore: 1, numIndexesAfter: 3, createdCollectionAutomatically: true, ok: 1 });
    const again = await db.command({ createIndexes: 'ix', indexes: [{ key: { a: 1 }, name: 'a_1', unique: true }] });
    expect(again).toMatchObject({ numIndexesBefore: 3, numIndexesAfter: 3, note: 'all indexes already exist', ok: 1 });
    const conflict = await serverError(db.command({ createIndexes: 'ix', indexes: [{ key: { a: 1 }, name: 'a_1' }] }));
    expect(conflict.code).toBe(86 === conflict.code ? 86 : 85);
    const list = await db.collection('ix').listIndexes().toArray();
    expect(list).toEqual([
      { v: 2, key: { _id: 1 }, name: '_id_' },
      { v: 2, key: { a: 1 }, name: 'a_1', unique: true },
      { v: 2, key: { b: 1, c: -1 }, name: 'b_1_c_-1' },
    ]);
    expect(await db.command({ dropIndexes: 'ix', index: 'b_1_c_-1' })).toMatchObject({ nIndexesWas: 3, ok: 1 });
    const missing = await serverError(db.command({ dropIndexes: 'ix', index: 'nope' }));
    expect(missing.code).toBe(27);
    expect(await db.command({ dropIndexes: 'ix', index: '*' })).toMatchObject({ nIndexesWas: 2, ok: 1 });
    expect((await db.collection('ix').listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_']);
    const nsMissing = await serverError(db.command({ listIndexes: 'never_created' }));
    expect(nsMissing.code).toBe(26);
  });

  it('building a unique index over duplicates fails with 11000', async () => {
    const c = await fresh('ixdup');
    await c.insertMany([{ e: 1 }, { e: 1 }]);
    const e = await serverError(c.createIndex({ e: 1 }, { unique: true }));
    expect(e.code).toBe(11000);
  });

  it('unique indexes: null/missing count as a value unless sparse; partial indexes only cover matching docs', async () => {
    const c = await fresh('uniqnull');
    await c.createIndex({ u: 1 }, { unique: true });
    await c.insertOne({ x: 1 });
    expect((await serverError(c.insertOne({ x: 2 }))).code).toBe(11000);
    const s = await fresh('uniqsparse');
    await s.createIndex({ u: 1 }, { unique: true, sparse: true });
    await s.insertMany([{ x: 1 }, { x: 2 }, { u: 1 }]);
    expect((await serverError(s.insertOne({ u: 1 }))).code).toBe(11000);
    const p = await fresh('uniqpartial');
    await p.createIndex({ email: 1 }, { unique: true, partialFilterExpression: { active: true } });
    await p.insertMany([{ email: 'a', active: false }, { email: 'a', active: true }, { email: 'a', active: false }]);
    expect((await serverError(p.insertOne({ email: 'a', active: true }))).code).toBe(11000);
    const m = await fresh('uniqmulti');
    await m.createIndex({ tags: 1 }, { unique: true });
    await m.insertOne({ tags: ['a', 'b'] });
    const e = await serverError(m.insertOne({ tags: ['c', 'b'] }));
    expect(e.code).toBe(11000);
    expect(e.keyValue).toEqual({ tags: 'b' });
  });

  it('create / listCollections / drop / dropDatabase', async () => {
    const other = client.db(target.dbName('conf_ns'));
    await other.dropDatabase();
    expect(await other.command({ create: 'c1' })).toEqual({ ok: 1 });
    const exists = await serverError(other.command({ create: 'c1' }));
    expect(exists.code).toBe(48);
    expect(exists.codeName).toBe('NamespaceExists');
    await other.collection('c2').insertOne({ a: 1 });
    const lc = await other.command({ listCollections: 1, filter: {}, nameOnly: false });
    const names = lc.cursor.firstBatch.map((x: any) => x.name).sort();
    expect(names).toEqual(['c1', 'c2']);
    const c1 = lc.cursor.firstBatch.find((x: any) => x.name === 'c1');
    expect(c1).toMatchObject({ name: 'c1', type: 'collection', options: {}, idIndex: { v: 2, key: { _id: 1 }, name: '_id_' } });
    expect((await other.listCollections({ name: 'c2' }, { nameOnly: true }).toArray()).map((x) => x.name)).toEqual(['c2']);
    const dropped = await other.command({ drop: 'c1' });
    expect(dropped).toMatchObject({ nIndexesWas: 1, ok: 1 });
    expect((await other.listCollections().toArray()).map((x) => x.name)).toEqual(['c2']);
    expect((await other.command({ dropDatabase: 1 })).ok).toBe(1);
    expect(await other.listCollections().toArray()).toEqual([]);
  });
});

describe('TTL indexes', () => {
  it('removes expired documents', async () => {
    const c = await fresh('ttl');
    await c.createIndex({ at: 1 }, { expireAfterSeconds: 0 });
    await c.insertMany([{ k: 'old', at: new Date(Date.now() - 60_000) }, { k: 'future', at: new Date(Date.now() + 3_600_000) }, { k: 'no-date', at: 'x' }]);
    if (target.embedded) await target.embedded.runTtlMonitor();
    const deadline = Date.now() + (REAL ? 70_000 : 5_000);
    while ((await c.countDocuments({ k: 'old' })) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect((await c.find({}).toArray()).map((d) => d.k).sort()).toEqual(['future', 'no-date']);
    const idx = (await c.listIndexes().toArray()).find((i) => i.name === 'at_1');
    expect(idx!.expireAfterSeconds).toBe(0);
  }, 80_000);
});

describe('query, update and projection operator semantics', () => {
  it('update operators behave like MongoDB', async () => {
    const c = await fresh('ops');
    const id = { _id: 1 as any };
    await c.insertOne({ _id: 1 as any, arr: [5, 1, 3], tags: ['a'], n: 2, d: { x: 1, y: 2 }, items: [{ k: 1, v: [1, 2] }, { k: 2, v: [3] }], bits: 5 });
    const get = async () => (await c.findOne(id))!;
    await c.updateOne(id, { $push: { arr: { $each: [4, 2], $sort: 1, $slice: 4 } } } as any);
    expect((await get()).arr).toEqual([1, 2, 3, 4]);
    await c.updateOne(id, { $push: { arr: { $each: [9], $position: 0 } } } as any);
    expect((await get()).arr).toEqual([9, 1, 2, 3, 4]);
    await c.updateOne(id, { $pull: { arr: { $gte: 4 } } } as any);
    expect((await get()).arr).toEqual([1, 2, 3]);
    await c.updateOne(id, { $addToSet: { tags: { $each: ['a', 'b'] } } } as any);
    expect((await get()).tags).toEqual(['a', 'b']);
    await c.updateOne(id, { $pop: { tags: -1 } });
    expect((await get()).tags).toEqual(['b']);
    await c.updateOne(id, { $min: { n: 1 }, $max: { m: 7 }, $mul: { bits: 2 } } as any);
    expect(await get()).toMatchObject({ n: 1, m: 7, bits: 10 });
    await c.updateOne(id, { $rename: { 'd.x': 'dx' }, $unset: { 'd.y': '' } } as any);
    expect(await get()).toMatchObject({ d: {}, dx: 1 });
    await c.updateOne(id, { $currentDate: { at: true } });
    expect((await get()).at).toBeInstanceOf(Date);
    await c.updateOne(id, { $bit: { bits: { and: 6 } } } as any);
    expect((await get()).bits).toBe(2);
    await c.updateOne(id, { $inc: { 'items.$[].k': 10 } } as any);
    await c.updateOne(id, { $set: { 'items.$[i].v.$[j]': 0 } } as any, { arrayFilters: [{ 'i.k': 11 }, { j: { $gt: 1 } }] });
    expect((await get()).items).toEqual([{ k: 11, v: [1, 0] }, { k: 12, v: [3] }]);
    await c.updateOne({ 'a.b': 1, z: { $gt: 3 }, $and: [{ q: 'w' }] }, { $set: { s: 1 } }, { upsert: true });
    const { _id, ...upserted } = (await c.findOne({ 'a.b': 1 }))!;
    expect(_id).toBeDefined();
    expect(upserted).toEqual({ a: { b: 1 }, q: 'w', s: 1 });
  });

  it('sorts like MongoDB: dates, compound keys, nested paths, arrays, missing values, $natural', async () => {
    const c = await fresh('sorting');
    await c.insertMany([
      { _id: 1 as any, at: new Date(3000), g: 'b', n: 2, s: { v: 3 }, arr: [5, 9] },
      { _id: 2 as any, at: new Date(1000), g: 'a', n: 2, s: { v: 1 }, arr: [1, 20] },
      { _id: 3 as any, g: 'b', n: 1, s: { v: 2 }, arr: [] },
      { _id: 4 as any, at: new Date(2000), g: 'a', n: 7, arr: 7 },
    ]);
    const order = async (sort: any) => (await c.find().sort(sort).toArray()).map((d) => d._id);
    expect(await order({ at: -1 })).toEqual([1, 4, 2, 3]);
    expect(await order({ at: 1 })).toEqual([3, 2, 4, 1]);
    expect(await order({ g: 1, n: -1 })).toEqual([4, 2, 1, 3]);
    expect(await order({ 's.v': 1 })).toEqual([4, 2, 3, 1]);
    expect(await order({ arr: 1 })).toEqual([3, 2, 1, 4]);
    expect(await order({ arr: -1 })).toEqual([2, 1, 4, 3]);
    expect((await c.find().sort({ $natural: -1 }).limit(2).toArray()).map((d) => d._id)).toEqual([4, 3]);
    const agg = await c.aggregate([{ $sort: { at: -1 } }, { $limit: 2 }, { $project: { _id: 1 } }]).toArray();
    expect(agg).toEqual([{ _id: 1 }, { _id: 4 }]);
    const agg2 = await c.aggregate([{ $match: { g: 'a' } }, { $sort: { n: -1 } }, { $group: { _id: '$g', first: { $first: '$_id' } } }]).toArray();
    expect(agg2).toEqual([{ _id: 'a', first: 4 }]);
  });

  it('common update cases: nested paths, no-op detection, type errors', async () => {
    const c = await fresh('fastupd');
    await c.insertOne({ _id: 1 as any, s: 'str', n: 1, o: { p: { q: 1 } }, list: [1], when: new Date(1000) });
    const upd = (u: any) => db.command({ update: 'fastupd', updates: [{ q: { _id: 1 }, u }] });
    expect(await upd({ $set: { 'o.p.r': 2, 'x.y.z': 3 }, $inc: { n: 2, m: 5 } })).toEqual({ n: 1, nModified: 1, ok: 1 });
    expect(await c.findOne({ _id: 1 as any })).toMatchObject({ n: 3, m: 5, o: { p: { q: 1, r: 2 } }, x: { y: { z: 3 } } });
    expect(await upd({ $set: { n: 3, 'o.p.q': 1 } })).toEqual({ n: 1, nModified: 0, ok: 1 });
    expect(await upd({ $unset: { nothere: '', 'a.b': '' } })).toEqual({ n: 1, nModified: 0, ok: 1 });
    expect(await upd({ $max: { when: new Date(500) }, $min: { n: 10 } })).toEqual({ n: 1, nModified: 0, ok: 1 });
    expect(await upd({ $max: { when: new Date(5000) } })).toEqual({ n: 1, nModified: 1, ok: 1 });
    expect(await upd({ $addToSet: { list: 1 } })).toEqual({ n: 1, nModified: 0, ok: 1 });
    expect(await upd({ $push: { list: { a: 1 } }, $addToSet: { other: 'x' } })).toEqual({ n: 1, nModified: 1, ok: 1 });
    expect(await c.findOne({ _id: 1 as any })).toMatchObject({ when: new Date(5000), list: [1, { a: 1 }], other: ['x'] });
    expect(await upd({ $set: { _id: 1, n: 4 } })).toEqual({ n: 1, nModified: 1, ok: 1 });
    const incStr = await upd({ $inc: { s: 1 } });
    expect(incStr.writeErrors[0].code).toBe(14);
    const pushStr = await upd({ $push: { s: 1 } });
    expect(pushStr.writeErrors[0].code).toBe(2);
    const through = await upd({ $set: { 's.x': 1 } });
    expect(through.writeErrors[0].code).toBe(28);
    expect((await c.findOne({ _id: 1 as any }))!.s).toBe('str');
  });

  it('query operators, sort order across types and projections behave like MongoDB', async () => {
    const c = await fresh('qops');
    await c.insertMany([{ _id: 10 as any, a: null }, { _id: 11 as any }, { _id: 12 as any, a: [1, null] }, { _id: 13 as any, a: 'Hello' }, { _id: 14 as any, a: [{ x: 1, y: 2 }, { x: 2, y: 1 }] }]);
    const ids = async (f: any) => (await c.find(f).project({ _id: 1 }).toArray()).map((d) => d._id);
    expect(await ids({ a: null })).toEqual([10, 11, 12]);
    expect(await ids({ a: { $exists: false } })).toEqual([11]);
    expect(await ids({ a: /^hel/i })).toEqual([13]);
    expect(await ids({ a: { $regex: 'ell', $options: '' } })).toEqual([13]);
    expect(await ids({ a: { $type: 'string' } })).toEqual([13]);
    expect(await ids({ a: { $elemMatch: { x: 1, y: 2 } } })).toEqual([14]);
    expect(await ids({ a: { $size: 2 } })).toEqual([12, 14]);
    expect(await ids({ a: { $not: { $eq: null } } })).toEqual([13, 14]);
    expect(await ids({ a: { $ne: null } })).toEqual([13, 14]);
    expect(await ids({ a: { $in: [null, 'Hello'] } })).toEqual([10, 11, 12, 13]);
    expect(await ids({ a: { $nin: [null] } })).toEqual([13, 14]);
    expect(await ids({ a: { $all: [1, null] } })).toEqual([12]);
    expect(await ids({ $expr: { $eq: ['$_id', 13] } })).toEqual([13]);
    expect(await ids({ 'a.x': 2 })).toEqual([14]);
    expect(await ids({ $or: [{ _id: 10 }, { a: 'Hello' }], _id: { $ne: 99 } })).toEqual([10, 13]);
    expect((await c.find().sort({ a: 1, _id: 1 }).toArray()).map((d) => d._id)).toEqual([10, 11, 12, 13, 14]);
    expect((await c.find().sort({ a: -1, _id: 1 }).toArray()).map((d) => d._id)).toEqual([14, 13, 12, 10, 11]);
    const [em] = await c.find({ _id: 14 as any }).project({ a: { $elemMatch: { x: 2 } } }).toArray();
    expect(Object.keys(em)).toEqual(['_id', 'a']);
    expect(em).toEqual({ _id: 14, a: [{ x: 2, y: 1 }] });
    expect(await c.find({ 'a.x': 2 }).project({ 'a.$': 1 }).toArray()).toEqual([{ _id: 14, a: [{ x: 2, y: 1 }] }]);
    expect(await c.find({ _id: 14 as any }).project({ 'a.x': 1, _id: 0 }).toArray()).toEqual([{ a: [{ x: 1 }, { x: 2 }] }]);
    expect(await c.find({ _id: 12 as any }).project({ a: { $slice: 1 } }).toArray()).toEqual([{ _id: 12, a: [1] }]);
  });
});
