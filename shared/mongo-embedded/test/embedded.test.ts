/**
 * Embedded-server specifics (not conformance): start-up time, the server object's API, wire protocol
 * details the driver does not exercise, and the documented limits, which must fail loudly.
 */
import * as net from 'node:net';
import { deserialize, serialize } from 'bson';
import { MongoClient, MongoServerError } from 'mongodb';
import { crc32c } from '../src/crc32c';
import { EmbeddedMongo, startEmbeddedMongo } from '../src';

let m: EmbeddedMongo;
let client: MongoClient;

beforeAll(async () => {
  m = await startEmbeddedMongo({ transactionLifetimeMs: 300 });
  client = await MongoClient.connect(m.uri());
});

afterAll(async () => {
  await client?.close();
  await m?.close();
});

function rawRequest(port: number, msg: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    let buf = Buffer.alloc(0);
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length >= 4 && buf.length >= buf.readInt32LE(0)) {
        sock.destroy();
        resolve(buf);
      }
    });
    sock.on('error', reject);
    sock.write(msg);
  });
}

function opMsg(body: object, seq?: { id: string; docs: object[] }, checksum = false): Buffer {
  const parts: Buffer[] = [Buffer.from([0]), Buffer.from(serialize(body))];
  if (seq) {
    const docs = seq.docs.map((d) => Buffer.from(serialize(d)));
    const id = Buffer.from(seq.id + '\0');
    const size = Buffer.alloc(4);
    size.writeInt32LE(4 + id.length + docs.reduce((a, d) => a + d.length, 0));
    parts.push(Buffer.from([1]), size, id, ...docs);
  }
  const payload = Buffer.concat(parts);
  const header = Buffer.alloc(20);
  const total = 20 + payload.length + (checksum ? 4 : 0);
  header.writeInt32LE(total, 0);
  header.writeInt32LE(42, 4);
  header.writeInt32LE(0, 8);
  header.writeInt32LE(2013, 12);
  header.writeUInt32LE(checksum ? 1 : 0, 16);
  const msg = Buffer.concat([header, payload, Buffer.alloc(checksum ? 4 : 0)]);
  if (checksum) msg.writeUInt32LE(crc32c(msg.subarray(0, total - 4)), total - 4);
  return msg;
}

describe('embedded server', () => {
  it('starts in well under 100 ms and gives a URL mongoose and the driver accept', async () => {
    const t0 = performance.now();
    const s = await startEmbeddedMongo();
    const took = performance.now() - t0;
    expect(took).toBeLessThan(100);
    expect(s.uri('ticketing')).toBe(`mongodb://127.0.0.1:${s.port}/ticketing?directConnection=true`);
    expect(s.host).toBe('127.0.0.1');
    await s.close();
    await s.close();
  });

  it('accepts OP_MSG with a checksum and a kind-1 document sequence', async () => {
    const reply = await rawRequest(m.port, opMsg({ insert: 'raw', $db: 'wire', ordered: true }, { id: 'documents', docs: [{ _id: 1 }, { _id: 2 }] }, true));
    expect(reply.readInt32LE(12)).toBe(2013);
    expect(reply.readInt32LE(8)).toBe(42);
    expect(deserialize(reply.subarray(21))).toEqual({ n: 2, ok: 1 });
    expect(await client.db('wire').collection('raw').countDocuments()).toBe(2);
  });

  it('exposes stats() counters', async () => {
    const c = client.db('s').collection('c');
    await c.insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i as any, k: i })));
    const before = m.stats();
    await c.findOne({ _id: 7 as any });
    const mid = m.stats();
    expect(mid.docsExamined - before.docsExamined).toBe(1);
    expect(mid.indexScans - before.indexScans).toBe(1);
    await c.findOne({ k: 49 });
    const after = m.stats();
    expect(after.collectionScans - mid.collectionScans).toBe(1);
    expect(after.docsExamined - mid.docsExamined).toBe(50);
  });

  it('fails loudly on what it does not implement', async () => {
    const db = client.db('limits');
    await db.collection('c').insertOne({ a: 'x' });
    const code = async (p: Promise<unknown>) => ((await p.then(() => null, (e) => e)) as MongoServerError | null)?.code;
    expect(await code(db.collection('c').find({}, { collation: { locale: 'fr' } }).toArray())).toBe(115);
    expect(await code(db.collection('c').find({ $text: { $search: 'x' } }).toArray())).toBe(115);
    expect(await code(db.collection('c').find({ $where: 'this.a' }).toArray())).toBe(115);
    expect(await code(db.collection('c').aggregate([{ $out: 'other' }]).toArray())).toBe(115);
    expect(await code(db.collection('c').createIndex({ a: 'text' }))).toBe(67);
    expect(await code(db.command({ renameCollection: 'limits.c', to: 'limits.d' }))).toBe(59);
    expect(await code(db.createCollection('capped', { capped: true, size: 4096 }))).toBe(115);
    expect(await code(db.createCollection('validated', { validator: { $jsonSchema: { required: ['a'] } } }))).toBe(115);
    expect(await code(db.collection('c').find({}, { tailable: true }).toArray())).toBe(115);
    expect(await db.collection('c').find({}, { collation: { locale: 'simple' } }).toArray()).toHaveLength(1);
  });

  it('answers $collStats and $indexStats (used by Compass)', async () => {
    const c = client.db('compass').collection('c');
    await c.insertMany([{ a: 1 }, { a: 2 }]);
    const [st] = await c.aggregate([{ $collStats: { storageStats: {}, count: {} } }]).toArray();
    expect(st.storageStats.count).toBe(2);
    expect(st.count).toBe(2);
    const ix = await c.aggregate([{ $indexStats: {} }]).toArray();
    expect(ix.map((i) => i.name)).toEqual(['_id_']);
  });

  it('aborts a transaction left open past its lifetime', async () => {
    const c = client.db('life').collection('c');
    await c.insertOne({ _id: 1 as any, n: 0 });
    const s = client.startSession();
    s.startTransaction();
    await c.updateOne({ _id: 1 as any }, { $inc: { n: 1 } }, { session: s });
    await new Promise((r) => setTimeout(r, 450));
    // The document is free again, and the transaction cannot commit.
    await c.updateOne({ _id: 1 as any }, { $inc: { n: 10 } });
    const e = await s.commitTransaction().then(
      () => null,
      (x) => x,
    );
    expect(e?.code).toBe(251);
    await s.endSession();
    expect((await c.findOne({ _id: 1 as any }))!.n).toBe(10);
  });
});
