/**
 * Counts the index answers alone (docs/adr/0077): a `count` whose filter is one key of an index's
 * leading fields reads the size of that key's entry instead of listing the documents. Every count is
 * checked against the same collection without indexes (a scan and the matcher), and whether it listed
 * documents (docsExamined) is checked where the index must answer and where it must not.
 */
import { MongoClient, type Db } from 'mongodb';
import { startEmbeddedMongo, type EmbeddedMongo } from '../src';

describe('count from the index', () => {
  let server: EmbeddedMongo;
  let client: MongoClient;
  let db: Db;
  const docs = Array.from({ length: 60 }, (_, i) => ({
    _id: `t${i}`,
    teamId: i % 3 === 0 ? 'a' : 'b',
    mode: i % 5 === 0 ? 'test' : 'live',
    status: ['open', 'pending', 'closed'][i % 3 === 0 ? i % 2 : i % 3],
    ...(i % 7 === 0 ? {} : { assignedTo: i % 4 === 0 ? null : `m${i % 4}` }),
    tags: i % 6 === 0 ? ['x', 'y'] : i % 6 === 1 ? [] : ['y'],
    priority: i % 4,
    createdAt: new Date(1_700_000_000_000 + i * 1000),
  }));
  beforeAll(async () => {
    server = await startEmbeddedMongo({});
    client = await MongoClient.connect(server.uri('app'));
    db = client.db('app');
    await db.collection('indexed').createIndexes([
      { key: { teamId: 1, mode: 1, status: 1, createdAt: -1 } },
      { key: { teamId: 1, mode: 1, assignedTo: 1 } },
      { key: { teamId: 1, mode: 1, tags: 1 } },
      { key: { teamId: 1, priority: 1 }, sparse: true },
    ]);
    await db.collection('indexed').insertMany(docs.map((d) => ({ ...d })) as never[]);
    await db.collection('plain').insertMany(docs.map((d) => ({ ...d })) as never[]);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  const count = async (name: string, query: object, session?: import('mongodb').ClientSession) => {
    const before = server.stats().docsExamined;
    const reply = await db.command({ count: name, query }, session ? { session } : {});
    return { n: reply.n as number, examined: server.stats().docsExamined - before };
  };

  it.each([
    ['the list (team, mode, status)', { teamId: 'a', mode: 'live', status: 'open' }, true],
    ['a leading prefix', { teamId: 'b', mode: 'test' }, true],
    ['the first field alone', { teamId: 'a' }, true],
    ['an $eq', { teamId: 'a', mode: { $eq: 'live' }, status: 'pending' }, true],
    ['null (missing or null: the matcher decides)', { teamId: 'b', mode: 'live', assignedTo: null }, false],
    ['a multikey field', { teamId: 'a', mode: 'live', tags: 'y' }, true],
    ['a key nobody holds', { teamId: 'z', mode: 'live', status: 'open' }, true],
    ['a field no index answers', { teamId: 'a', mode: 'live', priority: 2 }, false],
    ['an $in (keys to merge)', { teamId: 'a', mode: 'live', status: { $in: ['open', 'closed'] } }, false],
    ['a range', { teamId: 'a', mode: 'live', status: 'open', createdAt: { $gte: new Date(1_700_000_020_000) } }, false],
    ['an $and', { $and: [{ teamId: 'a' }, { mode: 'live' }] }, false],
    ['an _id', { _id: 't3', teamId: 'a' }, false],
    ['an empty array', { teamId: 'b', mode: 'live', tags: [] }, false],
  ])('%s: the same count as a scan', async (_, query, fromIndex) => {
    const indexed = await count('indexed', query);
    const plain = await count('plain', query);
    expect(indexed.n).toBe(plain.n);
    if (fromIndex) expect(indexed.examined).toBe(0);
    else expect(indexed.examined).toBeGreaterThan(0);
  });

  it('with skip and limit, and inside a transaction that wrote (its writes are not in the index)', async () => {
    const q = { teamId: 'a', mode: 'live', status: 'open' };
    const all = (await count('plain', q)).n;
    const reply = await db.command({ count: 'indexed', query: q, skip: 2, limit: 3 });
    expect(reply.n).toBe(Math.min(3, Math.max(0, all - 2)));
    const session = client.startSession();
    try {
      await session.withTransaction(async () => {
        await db.collection('indexed').insertOne({ _id: 'new', teamId: 'a', mode: 'live', status: 'open' } as never, { session });
        await db.collection('indexed').updateOne({ _id: 't3' as never, teamId: 'a' }, { $set: { status: 'closed' } }, { session });
        const inside = await db.collection('indexed').countDocuments(q, { session });
        expect(inside).toBe(all + 1 - ((await count('plain', { ...q, _id: 't3' })).n === 1 ? 1 : 0));
        expect((await count('indexed', q)).n).toBe(all);
        throw new Error('roll back');
      }).catch((e) => {
        if ((e as Error).message !== 'roll back') throw e;
      });
    } finally {
      await session.endSession();
    }
    expect((await count('indexed', q)).n).toBe(all);
  });
});
