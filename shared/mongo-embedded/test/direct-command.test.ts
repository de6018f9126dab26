/**
 * Direct commands (docs/adr/0052): the copy handed to the server in process is what the wire's BSON
 * round trip would have produced, or null (the wire decides); and the driver, wrapped, sends its
 * commands that way, with the same answers.
 */
import { Binary, Decimal128, deserialize, Double, Int32, Long, MaxKey, MinKey, ObjectId, serialize, Timestamp, UUID } from 'bson';
import { MongoClient } from 'mongodb';
import { startEmbeddedMongo, type EmbeddedMongo } from '../src';
import { commandBody } from '../src/direct-command';

/** What the server parses from the wire (wire.ts's options). */
const roundTrip = (command: Record<string, unknown>, ignoreUndefined: boolean) =>
  deserialize(serialize(command, { checkKeys: false, serializeFunctions: false, ignoreUndefined }), { promoteLongs: true, promoteValues: true, promoteBuffers: false, bsonRegExp: false });

/** Type-exact comparison: class names, number identity (-0, NaN), bytes, key order. */
function same(a: unknown, b: unknown, at = '$'): void {
  if (typeof a !== 'object' || a === null) {
    if (!Object.is(a, b)) throw new Error(`${at}: ${String(a)} !== ${String(b)}`);
    return;
  }
  if (typeof b !== 'object' || b === null) throw new Error(`${at}: object vs ${String(b)}`);
  if (a.constructor?.name !== b.constructor?.name) throw new Error(`${at}: ${a.constructor?.name} vs ${b.constructor?.name}`);
  if (a instanceof Date) return same(a.getTime(), (b as Date).getTime(), at);
  if (a instanceof Binary) {
    same(a.sub_type, (b as Binary).sub_type, `${at}.sub_type`);
    return same(Buffer.from(a.buffer.subarray(0, a.position)).toString('hex'), Buffer.from((b as Binary).buffer.subarray(0, (b as Binary).position)).toString('hex'), at);
  }
  if ('_bsontype' in a) return same(JSON.stringify(serialize({ v: a })), JSON.stringify(serialize({ v: b })), at);
  same(Object.keys(a).join(','), Object.keys(b).join(','), `${at} keys`);
  for (const k of Object.keys(a)) same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}.${k}`);
}

describe('commandBody: the copy equals the wire round trip', () => {
  const values: Record<string, unknown> = {
    str: 'héllo ✓ 😀',
    empty: '',
    int: 42,
    negZero: -0,
    double: 1.5,
    big: 2 ** 40,
    huge: 2 ** 60,
    nan: NaN,
    inf: -Infinity,
    yes: true,
    nothing: null,
    date: new Date('2026-11-24T10:00:00.123Z'),
    oid: new ObjectId(),
    int32: new Int32(7),
    dbl: new Double(7),
    long: Long.fromNumber(123),
    longMax: Long.fromNumber(2 ** 53),
    longBig: Long.fromString('9007199254740993'),
    longMin: Long.fromString('-9223372036854775808'),
    dec: Decimal128.fromString('1.10'),
    ts: new Timestamp({ t: 5, i: 6 }),
    bin: new Binary(Buffer.from('abc'), 0),
    binUuid: new Binary(Buffer.alloc(16, 7), 4),
    binShort4: new Binary(Buffer.alloc(3, 7), 4),
    uuid: new UUID(),
    buf: Buffer.from('xyz'),
    u8: new Uint8Array([1, 2, 3]),
    min: new MinKey(),
    max: new MaxKey(),
    arr: [1, 'a', undefined, null, [2, [3]], { n: { m: [{}] } }],
    nested: { a: { b: { c: undefined, d: 1 } }, '2': 'int-like key', '1': 'first' },
    nullProto: Object.assign(Object.create(null), { x: 1 }),
    map: new Map<string, unknown>([['b', 1], ['a', { d: new Date(1) }], ['u', undefined]]),
    'dotted.key': 1,
    $dollar: 1,
  };

  it.each([false, true])('for every value a command carries (ignoreUndefined %s)', (ignoreUndefined) => {
    const command = { insert: 'things', documents: [values, { ...values, _id: 1 }], ordered: true, lsid: { id: new UUID() }, txnNumber: Long.fromNumber(3), $db: 'app', gone: undefined };
    const copy = commandBody(command, ignoreUndefined);
    expect(copy).not.toBeNull();
    same(copy, roundTrip(command, ignoreUndefined));
  });

  it('shares nothing mutable with the caller', () => {
    const doc = { when: new Date(0), tags: ['a'], bytes: Buffer.from('ab'), inner: { n: 1 } };
    const copy = commandBody({ insert: 't', documents: [doc] }, false)!;
    doc.when.setTime(99);
    doc.tags.push('b');
    doc.bytes[0] = 0;
    doc.inner.n = 2;
    const stored = copy.documents[0];
    expect(stored.when.getTime()).toBe(0);
    expect(stored.tags).toEqual(['a']);
    expect(Buffer.from(stored.bytes.buffer.subarray(0, 2)).toString()).toBe('ab');
    expect(stored.inner.n).toBe(1);
  });

  it.each([
    ['a lone surrogate in a string (BSON writes U+FFFD)', { s: 'a\uD800b' }],
    ['a lone surrogate in a key', { ['k\uDC00']: 1 }],
    ['a key with a NUL byte (BSON refuses it)', { ['a\0b']: 1 }],
    ['a toBSON method', { v: { toBSON: () => ({ x: 1 }) } }],
    ['a DBRef shape', { v: { $ref: 'c', $id: 1 } }],
    ['a function', { f: () => 1 }],
    ['a function in an array', { a: [() => 1] }],
    ['a symbol', { s: Symbol('s') }],
    ['a bigint', { n: 5n }],
    ['a Map with a key that is not a string', { m: new Map([[1, 1]]) }],
    ['a class instance', { c: new (class Point { x = 1; })() }],
    ['an invalid date', { d: new Date(NaN) }],
    ['a RegExp', { r: /a/i }],
    ['deep nesting', { v: Array.from({ length: 150 }).reduce<unknown>((inner) => ({ inner }), 1) }],
    ['a deep array', { v: Array.from({ length: 150 }).reduce<unknown>((inner) => [inner], 1) }],
  ])('leaves %s to the wire', (_, value) => {
    expect(commandBody({ insert: 't', documents: [value], $db: 'app' }, false)).toBeNull();
  });
});

describe('the driver in process', () => {
  let server: EmbeddedMongo;
  let client: MongoClient;
  beforeAll(async () => {
    server = await startEmbeddedMongo({ unixSocket: true, inProcessClients: true });
    client = await MongoClient.connect(server.socketUri('app')!);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('hands its commands over directly, and answers as over TCP', async () => {
    const before = server.inProcessCommands();
    const things = client.db('app').collection('direct_things');
    const doc = { _id: new ObjectId(), n: 1, at: new Date(5), tags: ['a', 'b'], bytes: Buffer.from('hi'), big: Long.fromString('9007199254740993') };
    await things.insertOne(doc);
    doc.tags.push('mutated after the insert');
    await things.updateOne({ _id: doc._id }, { $inc: { n: 1 } });
    // Inserts, updates and deletes carry their statements as document sequences.
    await things.insertMany([{ n: 10 }, { n: 11 }, { n: 12 }]);
    await things.updateMany({ n: { $gte: 10 } }, { $set: { many: true } });
    await things.deleteMany({ n: 12 });
    expect(await things.countDocuments({ many: true })).toBe(2);
    const after = server.inProcessCommands();
    expect(after.direct - before.direct).toBeGreaterThanOrEqual(6);
    expect(after.wire).toBe(before.wire);

    const tcp = await MongoClient.connect(server.uri('app'));
    try {
      const viaTcp = await tcp.db('app').collection('direct_things').findOne({ _id: doc._id });
      const viaDirect = await things.findOne({ _id: doc._id });
      expect(viaDirect).toEqual(viaTcp);
      expect(viaDirect).toMatchObject({ n: 2, tags: ['a', 'b'], at: new Date(5) });
      expect(String(viaDirect!.big)).toBe('9007199254740993');
    } finally {
      await tcp.close();
    }
  });

  it('sends what only BSON can encode over the wire, with BSON\'s answer', async () => {
    const things = client.db('app').collection('wire_things');
    const before = server.inProcessCommands();
    await things.insertOne({ _id: 'lone' as never, s: 'a\uD800b' });
    expect(server.inProcessCommands().wire).toBe(before.wire + 1);
    expect((await things.findOne({ _id: 'lone' as never }))?.s).toBe('a\uFFFDb');
  });

  it('reports server errors, duplicate keys and write errors as the wire does', async () => {
    const things = client.db('app').collection('errors');
    await things.insertOne({ _id: 1 as never });
    await expect(things.insertOne({ _id: 1 as never })).rejects.toMatchObject({ code: 11000 });
    await expect(client.db('app').command({ noSuchCommand: 1 })).rejects.toMatchObject({ code: 59 });
    const bulk = await things.bulkWrite([{ insertOne: { document: { _id: 2 as never } } }, { insertOne: { document: { _id: 1 as never } } }], { ordered: false }).catch((e) => e);
    expect(bulk.writeErrors ?? bulk.result?.getWriteErrors?.()).toHaveLength(1);
    expect(await things.countDocuments()).toBe(2);
  });

  it('runs transactions and unacknowledged writes', async () => {
    const things = client.db('app').collection('txn');
    await things.insertOne({ _id: 0 as never });
    const session = client.startSession();
    try {
      await session.withTransaction(async () => {
        await things.insertOne({ _id: 1 as never }, { session });
        expect(await things.countDocuments({}, { session })).toBe(2);
        expect(await things.countDocuments({})).toBe(1);
      });
    } finally {
      await session.endSession();
    }
    expect(await things.countDocuments({})).toBe(2);
    await things.insertOne({ _id: 9 as never }, { writeConcern: { w: 0 } });
    for (let i = 0; i < 50 && (await things.countDocuments({})) < 3; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await things.countDocuments({})).toBe(3);
  });

  it('answers a find run as a command with an object equal to the BSON reply (docs/adr/0077)', async () => {
    const things = client.db('app').collection('reply_objects');
    const storable = {
      int: 42, double: 1.5, huge: 2 ** 60, nan: NaN, inf: -Infinity, yes: true, nothing: null, oid: new ObjectId(),
      int32: new Int32(7), dbl: new Double(7), long: Long.fromNumber(123), longMin: Long.fromString('-9223372036854775808'),
      dec: Decimal128.fromString('1.10'), ts: new Timestamp({ t: 5, i: 6 }), bin: new Binary(Buffer.from('abc'), 0),
      binUuid: new Binary(Buffer.alloc(16, 7), 4), uuid: new UUID(), min: new MinKey(), max: new MaxKey(), 'dotted.key': 1,
    };
    const docs = [
      { _id: 'a', ...storable, tags: ['x', 'y'], when: new Date(7), meta: { k: 'v', deep: [{ d: new Date(8) }] }, n: -0 },
      { _id: 'b', s: 'héllo ✓ 😀', arr: [1, 'a', null, [2, [3]], { n: { m: [{}] } }], bytes: Buffer.from('xyz'), big: Long.fromString('9007199254740993') },
      { _id: 'c', pattern: /a.b/i },
    ];
    await things.insertMany(docs as never[]);
    const tcp = await MongoClient.connect(server.uri('app'));
    try {
      for (const [cmd, asObject] of [
        [{ find: 'reply_objects', filter: { _id: { $in: ['a', 'b'] } }, sort: { _id: 1 } }, true],
        [{ find: 'reply_objects', filter: { _id: 'a' }, projection: { tags: 1, when: 1, meta: 1 } }, true],
        [{ find: 'reply_objects', filter: {}, sort: { _id: 1 }, batchSize: 1 }, true],
        [{ find: 'no_such_collection', filter: {} }, true],
        // A value the copy leaves to BSON (a RegExp): the reply is BSON.
        [{ find: 'reply_objects', filter: {}, sort: { _id: 1 } }, false],
      ] as const) {
        const viaTcp = await tcp.db('app').command(cmd);
        const before = server.inProcessCommands();
        const direct = await client.db('app').command(cmd);
        expect(server.inProcessCommands()).toMatchObject({ direct: before.direct + 1, replyObjects: before.replyObjects + (asObject ? 1 : 0) });
        // A cursor left open (batchSize 1) has its own id on each connection: the same type, then set aside.
        expect(typeof direct.cursor.id).toBe(typeof viaTcp.cursor.id);
        expect(direct.cursor.id === 0).toBe(viaTcp.cursor.id === 0);
        direct.cursor.id = viaTcp.cursor.id = 0;
        same(direct, viaTcp);
      }
      // The object shares nothing with the store: changing it changes no later answer.
      const first = await client.db('app').command({ find: 'reply_objects', filter: { _id: 'a' } });
      first.cursor.firstBatch[0].tags.push('changed');
      first.cursor.firstBatch[0].when.setTime(0);
      first.cursor.firstBatch[0].meta.deep[0].d.setTime(0);
      const again = await client.db('app').command({ find: 'reply_objects', filter: { _id: 'a' } });
      expect(again.cursor.firstBatch[0]).toMatchObject({ tags: ['x', 'y'], when: new Date(7), meta: { deep: [{ d: new Date(8) }] } });
      // Other BSON options: the reply is BSON, read as the driver reads it.
      const objects = server.inProcessCommands().replyObjects;
      const promoted = await client.db('app').command({ find: 'reply_objects', filter: { _id: 'b' } }, { promoteLongs: false });
      // The driver's own finds (a cursor response, read from its bytes) stay BSON too.
      expect(await things.find({ _id: 'a' as never }).toArray()).toHaveLength(1);
      expect(server.inProcessCommands().replyObjects).toBe(objects);
      expect(promoted.cursor.firstBatch[0].big).toBeInstanceOf(Long);
      same(promoted, await tcp.db('app').command({ find: 'reply_objects', filter: { _id: 'b' } }, { promoteLongs: false }));
      // An error stays BSON and throws as over TCP.
      await expect(client.db('app').command({ find: 'reply_objects', filter: { $bad: 1 } })).rejects.toMatchObject({ code: expect.any(Number) });
    } finally {
      await tcp.close();
    }
  });

  it('pages a cursor past its first batch', async () => {
    const things = client.db('app').collection('paged');
    await things.insertMany(Array.from({ length: 450 }, (_, i) => ({ i })));
    const seen = await things.find({}, { batchSize: 100 }).sort({ i: 1 }).toArray();
    expect(seen.map((d) => d.i)).toEqual(Array.from({ length: 450 }, (_, i) => i));
  });
});
