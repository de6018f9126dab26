/**
 * Conformance: how deep a document may nest, pinned to MongoDB's enforced limits and errors (see
 * src/depth.ts for where they come from in the MongoDB source). Runs against the embedded server, or
 * against a real MongoDB when MONGO_URL is set.
 *
 * - Stored documents: maxBSONDepth − 20 levels (180 on a default mongod), the document itself being
 *   level 1 and empty objects/arrays not counting. MongoDB's manual says 100; the server accepts 101
 *   to 180 too, and so must the embedded server, or code tested on it would behave differently in
 *   production. One level more is refused with Overflow (15): "cannot insert document because it
 *   exceeds 180 levels of nesting" on insert, "Document exceeds maximum nesting depth of 180" when an
 *   update, upsert or findAndModify would produce it.
 * - Anything read off the wire: maxBSONDepth + 1 levels (201); deeper is refused with Overflow (15),
 *   "BSONObj exceeds maximum nested object depth …", and the connection stays usable.
 */
import * as net from 'node:net';
import { deserialize, serialize } from 'bson';
import { Collection, Db, MongoClient, MongoServerError } from 'mongodb';
import mongoose, { Connection, Schema } from 'mongoose';
import { startEmbeddedMongo } from '../src';
import { wireDepthError } from '../src/depth';
import { REAL, Target, useTargetDb } from './target';

let target: Target;
let db: Db;
/** The stored-document limit of the server under test (180 unless it was started with another maxBSONDepth). */
let limit: number;

useTargetDb('conf_depth', async (t) => {
  ({ target, db } = t);
  limit = (await maxBSONDepth()) - 20;
});

/** The server's maxBSONDepth (200 if it will not say, e.g. where getParameter is not allowed). */
async function maxBSONDepth(): Promise<number> {
  const p = await db.admin().command({ getParameter: 1, maxBSONDepth: 1 }).catch(() => ({}) as Record<string, unknown>);
  return typeof p.maxBSONDepth === 'number' ? p.maxBSONDepth : 200;
}

/** `levels` nested objects `{ a: { a: … { a: leaf } } }` (0 levels = the leaf itself). */
function chain(levels: number, leaf: unknown = 1): any {
  let v: unknown = leaf;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

/** A document nested exactly `depth` levels, the document itself being level 1. */
function docOfDepth(depth: number, id: unknown, leaf: unknown = 1): any {
  return { _id: id, v: chain(depth - 1, leaf) };
}

const insertMessage = (max: number) => `cannot insert document because it exceeds ${max} levels of nesting`;
const updateMessage = (max: number) => `Document exceeds maximum nesting depth of ${max}`;

async function serverError(p: Promise<unknown>): Promise<MongoServerError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof MongoServerError) return e;
    throw e;
  }
  throw new Error('expected a server error');
}

async function fresh(name: string): Promise<Collection<any>> {
  await db.collection(name).drop().catch(() => undefined);
  return db.collection<any>(name);
}

describe('stored documents: depth limit on insert', () => {
  it('reports the maxBSONDepth the limits derive from (200 on a default server)', async () => {
    const p = await db.admin().command({ getParameter: 1, maxBSONDepth: 1 });
    expect(p.ok).toBe(1);
    expect(Number.isInteger(p.maxBSONDepth)).toBe(true);
    if (!REAL) expect(p.maxBSONDepth).toBe(200);
  });

  it('stores documents of 100 and 101 levels and of exactly the limit, unchanged', async () => {
    const c = await fresh('depth_ok');
    for (const depth of [100, 101, limit]) {
      const doc = docOfDepth(depth, depth);
      await c.insertOne(doc);
      expect(await c.findOne({ _id: depth })).toEqual(doc);
    }
    // Arrays count like objects.
    const arrays = { _id: 'arrays', v: Array.from({ length: limit - 1 }).reduce<unknown>((inner) => [inner], 1) };
    await c.insertOne(arrays);
    expect(await c.findOne({ _id: 'arrays' })).toEqual(arrays);
  });

  it('does not count an empty object or array at the bottom', async () => {
    const c = await fresh('depth_empty');
    await c.insertOne(docOfDepth(limit, 'obj', {}));
    await c.insertOne(docOfDepth(limit, 'arr', []));
    expect(await c.countDocuments()).toBe(2);
    expect(await c.findOne({ _id: 'obj' })).toEqual(docOfDepth(limit, 'obj', {}));
  });

  it('refuses an insert one level deeper with Overflow (15), through insertOne, insertMany and the insert command', async () => {
    const c = await fresh('depth_insert');
    const e = await serverError(c.insertOne(docOfDepth(limit + 1, 'deep')));
    expect(e.code).toBe(15);
    expect(e.message).toBe(insertMessage(limit));

    const arrays = { _id: 'arrays', v: Array.from({ length: limit }).reduce<unknown>((inner) => [inner], 1) };
    expect((await serverError(c.insertOne(arrays))).code).toBe(15);

    const r = await db.command({ insert: 'depth_insert', documents: [{ _id: 1 }, docOfDepth(limit + 1, 2), { _id: 3 }] });
    expect(r.n).toBe(1);
    expect(r.writeErrors).toHaveLength(1);
    expect(r.writeErrors[0]).toMatchObject({ index: 1, code: 15, errmsg: insertMessage(limit) });

    const unordered = await db.command({ insert: 'depth_insert', ordered: false, documents: [docOfDepth(limit + 1, 4), { _id: 5 }] });
    expect(unordered.n).toBe(1);
    expect(unordered.writeErrors[0]).toMatchObject({ index: 0, code: 15 });
    expect((await c.find().sort({ _id: 1 }).toArray()).map((d) => d._id)).toEqual([1, 5]);
  });
});

describe('stored documents: depth limit on update, upsert and findAndModify', () => {
  it('accepts an update whose result is exactly at the limit', async () => {
    const c = await fresh('depth_upd_ok');
    await c.insertOne({ _id: 1 });
    await c.updateOne({ _id: 1 }, { $set: { v: chain(limit - 1) } });
    expect(await c.findOne({ _id: 1 })).toEqual(docOfDepth(limit, 1));
    // A dotted path creates the intermediate object: root, a, then the value's levels.
    await c.updateOne({ _id: 1 }, { $set: { 'a.b': chain(limit - 2) } });
    expect((await c.findOne({ _id: 1 }))!.a.b).toEqual(chain(limit - 2));
  });

  it('refuses $set of a value that makes the document one level too deep, and leaves the document as it was', async () => {
    const c = await fresh('depth_upd');
    await c.insertOne({ _id: 1, x: 1 });
    const e = await serverError(c.updateOne({ _id: 1 }, { $set: { v: chain(limit) } }));
    expect(e.code).toBe(15);
    expect(e.message).toBe(updateMessage(limit));
    expect((await serverError(c.updateOne({ _id: 1 }, { $set: { 'a.b': chain(limit - 1) } }))).code).toBe(15);
    expect((await serverError(c.updateMany({}, { $push: { list: chain(limit - 1) } }))).code).toBe(15);

    const r = await db.command({ update: 'depth_upd', updates: [{ q: { _id: 1 }, u: { $set: { v: chain(limit) } } }] });
    expect(r).toMatchObject({ n: 0, nModified: 0 });
    expect(r.writeErrors[0]).toMatchObject({ index: 0, code: 15, errmsg: updateMessage(limit) });
    expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1, x: 1 });
  });

  it('refuses a replacement that is too deep with the update error', async () => {
    const c = await fresh('depth_repl');
    await c.insertOne({ _id: 1 });
    const e = await serverError(c.replaceOne({ _id: 1 }, { v: chain(limit) }));
    expect(e.code).toBe(15);
    expect(e.message).toBe(updateMessage(limit));
    expect(await c.findOne({ _id: 1 })).toEqual({ _id: 1 });
  });

  it('refuses an upsert that would insert a document too deep, with the update error, and inserts nothing', async () => {
    const c = await fresh('depth_upsert');
    const e = await serverError(c.updateOne({ _id: 7 }, { $set: { v: chain(limit) } }, { upsert: true }));
    expect(e.code).toBe(15);
    expect(e.message).toBe(updateMessage(limit));
    expect(await c.countDocuments()).toBe(0);
    await c.updateOne({ _id: 7 }, { $set: { v: chain(limit - 1) } }, { upsert: true });
    expect(await c.findOne({ _id: 7 })).toEqual(docOfDepth(limit, 7));
  });

  it('refuses findAndModify (update and upsert) with the command error Overflow', async () => {
    const c = await fresh('depth_fam');
    await c.insertOne({ _id: 1 });
    const e = await serverError(c.findOneAndUpdate({ _id: 1 }, { $set: { v: chain(limit) } }, { returnDocument: 'after' }));
    expect(e.code).toBe(15);
    expect(e.codeName).toBe('Overflow');
    expect(e.message).toBe(updateMessage(limit));
    const up = await serverError(c.findOneAndUpdate({ _id: 2 }, { $set: { v: chain(limit) } }, { upsert: true }));
    expect(up).toMatchObject({ code: 15, codeName: 'Overflow' });
    expect(up.message).toBe(updateMessage(limit));
    const repl = await serverError(c.findOneAndReplace({ _id: 1 }, { v: chain(limit) }));
    expect(repl).toMatchObject({ code: 15, codeName: 'Overflow' });
    expect(await c.find().toArray()).toEqual([{ _id: 1 }]);

    const ok = await c.findOneAndUpdate({ _id: 1 }, { $set: { v: chain(limit - 1) } }, { returnDocument: 'after' });
    expect(ok).toEqual(docOfDepth(limit, 1));
  });
});

describe('anything deeper than the wire limit', () => {
  it('refuses a 5,000-level document from the driver with Overflow (15) and keeps the connection', async () => {
    const c = await fresh('depth_wire');
    const e = await serverError(c.insertOne(docOfDepth(5000, 1)));
    expect(e.code).toBe(15);
    expect(e.codeName).toBe('Overflow');
    expect(e.message).toMatch(/^BSONObj exceeds maximum nested object depth/);
    const q = await serverError(c.findOne({ v: chain(5000) }));
    expect(q).toMatchObject({ code: 15, codeName: 'Overflow' });
    // The same client, the same pool: still answering.
    await c.insertOne({ _id: 2 });
    expect(await c.countDocuments()).toBe(1);
  });

  it('names the path to the level that is one too deep: a command may nest maxBSONDepth + 1 levels', async () => {
    const frames = (await maxBSONDepth()) + 1;
    // { find, filter: { a: … } }: the command is level 1, the filter level 2.
    const fits = await db.command({ find: 'depth_wire_path', filter: chain(frames - 1, 1) }).catch((e) => e);
    expect(fits.code).not.toBe(15);
    const e = await serverError(db.command({ find: 'depth_wire_path', filter: chain(frames, 1) }));
    expect(e.code).toBe(15);
    expect(e.message).toBe(
      `BSONObj exceeds maximum nested object depth in element with field name 'filter.${Array(frames - 1).fill('a').join('.')}' in object with unknown _id`,
    );
  });

  it('answers a 100,000-level document sent over a raw socket with Overflow, and the socket stays usable', async () => {
    // Raw sockets go to the TCP listener (target.uri may be the in-process socket URL).
    const url = new URL(target.embedded?.uri('x') ?? target.uri('x'));
    const sock = net.connect(Number(url.port || 27017), url.hostname.replace(/^\[|\]$/g, ''));
    try {
      await new Promise<void>((resolve, reject) => {
        sock.once('connect', resolve);
        sock.once('error', reject);
      });
      const replies = readReplies(sock);
      const bomb = insertCommand(target.dbName('conf_depth'), 'depth_raw', deepBytes(100_000));
      expect(bomb.length).toBeGreaterThan(700_000);
      sock.write(opMsg(1, bomb));
      const first = await replies.next(1);
      expect(first).toMatchObject({ ok: 0, code: 15, codeName: 'Overflow' });
      expect(first.errmsg).toMatch(/^BSONObj exceeds maximum nested object depth/);
      sock.write(opMsg(2, Buffer.from(serialize({ ping: 1, $db: 'admin' }))));
      expect(await replies.next(2)).toMatchObject({ ok: 1 });
    } finally {
      sock.destroy();
    }
  }, 30_000);
});

describe('through mongoose', () => {
  let conn: Connection;
  const schema = new Schema({ _id: Number, v: Schema.Types.Mixed }, { versionKey: false });

  beforeAll(async () => {
    conn = await mongoose.createConnection(target.uri('conf_depth_mongoose')).asPromise();
  });
  afterAll(async () => {
    await conn?.dropDatabase().catch(() => undefined);
    await conn?.close();
  });

  it('creates a document at the limit and refuses one level more with MongoDB error 15', async () => {
    const M = conn.model('DepthCreate', schema);
    await M.create({ _id: 1, v: chain(limit - 1) });
    expect(await M.findById(1).lean()).toEqual(docOfDepth(limit, 1));
    await M.create({ _id: 100, v: chain(100) });
    const e = await serverError(M.create({ _id: 2, v: chain(limit) }));
    expect(e.code).toBe(15);
    expect(e.message).toBe(insertMessage(limit));
    expect(await M.countDocuments()).toBe(2);
  });

  it('refuses updateOne, findOneAndUpdate and an upsert that would nest too deep', async () => {
    const M = conn.model('DepthUpdate', schema);
    await M.create({ _id: 1, v: 1 });
    const u = await serverError(M.updateOne({ _id: 1 }, { $set: { v: chain(limit) } }).exec());
    expect(u.code).toBe(15);
    expect(u.message).toBe(updateMessage(limit));
    const f = await serverError(M.findOneAndUpdate({ _id: 1 }, { $set: { v: chain(limit) } }, { returnDocument: 'after' }).exec());
    expect(f).toMatchObject({ code: 15, codeName: 'Overflow' });
    const up = await serverError(M.findOneAndUpdate({ _id: 3 }, { $set: { v: chain(limit) } }, { upsert: true, returnDocument: 'after' }).exec());
    expect(up.code).toBe(15);
    expect(up.message).toBe(updateMessage(limit));
    expect(await M.find().lean()).toEqual([{ _id: 1, v: 1 }]);
    const ok = await M.findOneAndUpdate({ _id: 1 }, { $set: { v: chain(limit - 1) } }, { returnDocument: 'after' }).lean();
    expect(ok).toEqual(docOfDepth(limit, 1));
  });
});

(REAL ? describe.skip : describe)('embedded only: the maxBSONDepth option', () => {
  it('maxBSONDepth: 120 enforces the 100 levels of MongoDB\'s manual, with the same errors', async () => {
    const m = await startEmbeddedMongo({ maxBSONDepth: 120 });
    const c2 = await MongoClient.connect(m.uri());
    try {
      const coll = c2.db('d').collection<any>('c');
      await coll.insertOne(docOfDepth(100, 1));
      const e = await serverError(coll.insertOne(docOfDepth(101, 2)));
      expect(e).toMatchObject({ code: 15, message: insertMessage(100) });
      const u = await serverError(coll.updateOne({ _id: 1 }, { $set: { w: chain(100) } }));
      expect(u).toMatchObject({ code: 15, message: updateMessage(100) });
      const w = await serverError(coll.insertOne(docOfDepth(130, 3)));
      expect(w.message).toMatch(/^BSONObj exceeds maximum nested object depth/);
      expect(await c2.db('admin').command({ getParameter: 1, maxBSONDepth: 1 })).toMatchObject({ maxBSONDepth: 120 });
    } finally {
      await c2.close();
      await m.close();
    }
  });

  it('refuses a maxBSONDepth outside MongoDB\'s range (21 to 250)', async () => {
    await expect(startEmbeddedMongo({ maxBSONDepth: 20 })).rejects.toThrow(RangeError);
    await expect(startEmbeddedMongo({ maxBSONDepth: 251 })).rejects.toThrow(RangeError);
  });

  it('scans raw BSON without recursion: code-with-scope counts two levels, malformed input is left to the decoder', () => {
    const deep = deepBytes(300);
    expect(wireDepthError(deep, 0, deep.length, 200)).toMatch(/^BSONObj exceeds maximum nested object depth in element with field name 'a\.a/);
    const fits = deepBytes(200);
    expect(wireDepthError(fits, 0, fits.length, 200)).toBeNull();
    const malformed = Buffer.from(deep);
    malformed.writeInt32LE(3, 7 * 10); // a nested length below the minimum of 5
    expect(wireDepthError(malformed, 0, malformed.length, 200)).toBeNull();
    const withId = Buffer.from(serialize({ _id: 7, v: chain(250) }));
    expect(wireDepthError(withId, 0, withId.length, 200)).toMatch(/in object with _id: 7$/);
    // { c: Code(…, scope) } at level 200: the code-with-scope takes level 201 and its scope 202.
    const { Code } = jest.requireActual('bson');
    const cws = Buffer.from(serialize(chain(199, { c: new Code('x', { s: 1 }) })));
    expect(wireDepthError(cws, 0, cws.length, 200)).toMatch(/field name 'a(\.a){198}\.c\.\?' in object with unknown _id$/);
    const cwsFits = Buffer.from(serialize(chain(198, { c: new Code('x', { s: 1 }) })));
    expect(wireDepthError(cwsFits, 0, cwsFits.length, 200)).toBeNull();
  });
});

// ---- raw wire helpers ------------------------------------------------------------------------------

/** The BSON bytes of `levels` nested `{ a: … }` objects ending in `{}`, built without recursion. */
function deepBytes(levels: number): Buffer {
  const total = 8 * levels + 5;
  const out = Buffer.alloc(total);
  for (let i = 0; i < levels; i++) {
    const at = 7 * i;
    out.writeInt32LE(total - 8 * i, at);
    out[at + 4] = 0x03;
    out[at + 5] = 0x61; // 'a'
    out[at + 6] = 0;
  }
  out.writeInt32LE(5, 7 * levels); // the innermost {}; every terminator is the zero the buffer starts with
  return out;
}

function element(type: number, name: string, value: Buffer): Buffer {
  return Buffer.concat([Buffer.from([type]), Buffer.from(name + '\0'), value]);
}

function bsonString(s: string): Buffer {
  const b = Buffer.from(s + '\0');
  const len = Buffer.alloc(4);
  len.writeInt32LE(b.length);
  return Buffer.concat([len, b]);
}

function document(elements: Buffer[]): Buffer {
  const body = Buffer.concat(elements);
  const len = Buffer.alloc(4);
  len.writeInt32LE(body.length + 5);
  return Buffer.concat([len, body, Buffer.from([0])]);
}

/** `{ insert: coll, documents: [doc], $db: dbName }` around raw document bytes. */
function insertCommand(dbName: string, coll: string, doc: Buffer): Buffer {
  return document([element(0x02, 'insert', bsonString(coll)), element(0x04, 'documents', document([element(0x03, '0', doc)])), element(0x02, '$db', bsonString(dbName))]);
}

function opMsg(requestId: number, body: Buffer): Buffer {
  const head = Buffer.alloc(21);
  head.writeInt32LE(21 + body.length, 0);
  head.writeInt32LE(requestId, 4);
  head.writeInt32LE(0, 8);
  head.writeInt32LE(2013, 12);
  head.writeUInt32LE(0, 16);
  head[20] = 0;
  return Buffer.concat([head, body]);
}

/** Collects OP_MSG replies by responseTo; `next(id)` waits (bounded) for the reply to request `id`. */
function readReplies(sock: net.Socket): { next(id: number): Promise<any> } {
  let buf = Buffer.alloc(0);
  const got = new Map<number, any>();
  const waiters = new Map<number, (v: any) => void>();
  sock.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    while (buf.length >= 4 && buf.length >= buf.readInt32LE(0)) {
      const len = buf.readInt32LE(0);
      const msg = buf.subarray(0, len);
      buf = buf.subarray(len);
      const reply = deserialize(msg.subarray(21));
      const to = msg.readInt32LE(8);
      const w = waiters.get(to);
      if (w) w(reply);
      else got.set(to, reply);
    }
  });
  return {
    next(id) {
      if (got.has(id)) return Promise.resolve(got.get(id));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no reply to request ${id}`)), 10_000);
        waiters.set(id, (v) => {
          clearTimeout(timer);
          resolve(v);
        });
        sock.once('close', () => reject(new Error(`socket closed before the reply to request ${id}`)));
      });
    },
  };
}
