import { MongoClient } from 'mongodb';
import { startEmbeddedMongo, type EmbeddedMongo } from '../src';
import { Collection, Index } from '../src/storage';
import { keyOf } from '../src/values';

/**
 * Indexes leading with the same fields share their prefix maps (Collection.addIndex): one index keeps
 * each shared map, the others read it, and dropping the keeper hands the upkeep to another.
 */
/** The `_id`s (string ids here) of the documents holding `values` in the index's first fields. */
const ids = (ix: Index, values: unknown[]) => ix.owners(values.map(keyOf).join('|'), values.length).map((k) => JSON.parse(k) as string).sort();

describe('shared prefix maps', () => {
  const docs = [
    { _id: 'a', teamId: 't1', mode: 'test', status: 'open', tags: ['x', 'y'] },
    { _id: 'b', teamId: 't1', mode: 'live', status: 'closed', tags: [] },
    { _id: 'c', teamId: 't2', mode: 'test', status: 'open' },
  ];
  const collection = () => {
    const c = new Collection('db', 'tickets');
    for (const d of docs) c.putRaw({ ...d });
    const byStatus = new Index({ key: { teamId: 1, mode: 1, status: 1 }, name: 'byStatus' });
    const byTags = new Index({ key: { teamId: 1, mode: 1, tags: 1 }, name: 'byTags' });
    const byTeam = new Index({ key: { teamId: 1, createdAt: -1 }, name: 'byTeam' });
    const sparse = new Index({ key: { teamId: 1, mode: 1, x: 1 }, name: 'sparse', sparse: true });
    const partial = new Index({ key: { teamId: 1, mode: 1 }, name: 'partial', partialFilterExpression: { status: 'open' } });
    for (const ix of [byStatus, byTags, byTeam, sparse, partial]) c.addIndex(ix);
    return { c, byStatus, byTags, byTeam, sparse, partial };
  };

  it('complete indexes with the same leading fields hold one map; sparse and partial ones keep their own', () => {
    const { byStatus, byTags, byTeam, sparse, partial } = collection();
    expect(byTags.prefixes[0]).toBe(byStatus.prefixes[0]);
    expect(byTags.prefixes[1]).toBe(byStatus.prefixes[1]);
    expect(byTeam.prefixes[0]).toBe(byStatus.prefixes[0]);
    expect(byStatus.ownsPrefix).toEqual([true, true]);
    expect([byTags.ownsPrefix, byTeam.ownsPrefix]).toEqual([[false, false], [false]]);
    expect(sparse.prefixes[0]).not.toBe(byStatus.prefixes[0]);
    expect(sparse.ownsPrefix).toEqual([true, true]);
    expect(ids(partial, ['t1'])).toEqual(['a']);
    // The multikey index read through the shared map: every document once, whatever its tags.
    expect(ids(byTags, ['t1', 'test'])).toEqual(['a']);
    expect(ids(byTags, ['t1'])).toEqual(['a', 'b']);
  });

  it('dropping the index that keeps a shared map hands it to another; writes after it are still found', () => {
    const { c, byTags, byTeam } = collection();
    c.dropIndex('byStatus');
    expect(byTags.ownsPrefix).toEqual([true, true]);
    expect(byTeam.ownsPrefix).toEqual([false]);
    c.putRaw({ _id: 'd', teamId: 't1', mode: 'test', tags: ['z'] });
    c.putRaw({ _id: 'a', teamId: 't2', mode: 'test', status: 'open' });
    c.removeRaw(keyOf('b'));
    expect(ids(byTags, ['t1', 'test'])).toEqual(['d']);
    expect(ids(byTeam, ['t1'])).toEqual(['d']);
    expect(ids(byTeam, ['t2'])).toEqual(['a', 'c']);
    c.dropIndex('byTags');
    expect(byTeam.ownsPrefix).toEqual([true]);
    c.putRaw({ _id: 'e', teamId: 't1', mode: 'live' });
    expect(ids(byTeam, ['t1'])).toEqual(['d', 'e']);
  });
});

describe('shared prefix maps through the server', () => {
  let m: EmbeddedMongo;
  let client: MongoClient;
  beforeAll(async () => {
    m = await startEmbeddedMongo();
    client = await MongoClient.connect(m.uri());
  });
  afterAll(async () => {
    await client.close();
    await m.close();
  });

  it('answers equality on leading fields through every remaining index as indexes come and go', async () => {
    const c = client.db('prefixes').collection<{ _id: number; teamId: string; mode: string; n: number }>('docs');
    await c.createIndex({ teamId: 1, mode: 1, n: 1 }, { name: 'first' });
    await c.createIndex({ teamId: 1, mode: 1, n: -1 }, { name: 'second' });
    await c.insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: i, teamId: `t${i % 2}`, mode: i % 4 < 2 ? 'test' : 'live', n: i })));
    await c.dropIndex('first');
    await c.insertMany(Array.from({ length: 10 }, (_, i) => ({ _id: 100 + i, teamId: 't0', mode: 'test', n: i })));
    await c.deleteMany({ _id: { $in: [0, 4] } });
    await c.updateOne({ _id: 8 }, { $set: { mode: 'live' } });
    const found = async () => (await c.find({ teamId: 't0', mode: 'test' }, { hint: 'second', projection: { _id: 1 } }).toArray()).map((d) => d._id).sort((a, b) => a - b);
    const expected = [12, 16, ...Array.from({ length: 10 }, (_, i) => 100 + i)];
    expect(await found()).toEqual(expected);
    await c.createIndex({ teamId: 1, mode: 1, n: 1 }, { name: 'first' });
    await c.dropIndex('second');
    await c.insertOne({ _id: 200, teamId: 't0', mode: 'test', n: 0 });
    expect((await c.find({ teamId: 't0', mode: 'test' }, { hint: 'first', projection: { _id: 1 } }).toArray()).map((d) => d._id).sort((a, b) => a - b)).toEqual([...expected, 200]);
  });
});
