/** Conformance: equality queries on indexed fields use the index instead of scanning. */
import { Collection, Db } from 'mongodb';
import { Target, useTargetDb } from './target';

const N = 20_000;
let target: Target;
let db: Db;
let people: Collection;

useTargetDb('conf_ix', async (t) => {
  ({ target, db } = t);
  people = db.collection('people');
  await people.drop().catch(() => undefined);
  const docs = Array.from({ length: N }, (_, i) => ({ _id: i as any, email: `p${i}@x`, team: `t${i % 100}`, status: i % 3 === 0 ? 'open' : 'closed', score: i % 1000, tags: [`a${i % 7}`, `b${i % 11}`] }));
  for (let i = 0; i < N; i += 5000) await people.insertMany(docs.slice(i, i + 5000));
  await people.createIndex({ email: 1 }, { unique: true });
  await people.createIndex({ team: 1, status: 1 });
  await people.createIndex({ tags: 1 });
}, 60_000);

async function explain(filter: Record<string, unknown>) {
  const r = await db.command({ explain: { find: 'people', filter }, verbosity: 'executionStats' });
  return { stats: r.executionStats, usesIndex: JSON.stringify(r.queryPlanner.winningPlan).includes('IXSCAN') };
}

describe('index use', () => {
  it('an equality query on a unique field examines one document', async () => {
    const e = await explain({ email: 'p12345@x' });
    expect(e.usesIndex).toBe(true);
    expect(e.stats.nReturned).toBe(1);
    expect(e.stats.totalDocsExamined).toBe(1);
    if (target.embedded) {
      const before = target.embedded.stats();
      expect(await people.findOne({ email: 'p777@x' })).toMatchObject({ _id: 777 });
      const after = target.embedded.stats();
      expect(after.docsExamined - before.docsExamined).toBe(1);
      expect(after.collectionScans - before.collectionScans).toBe(0);
    }
  });

  it('equality on the two leading fields of a three-field index examines only their documents', async () => {
    const c = db.collection('threes');
    await c.drop().catch(() => undefined);
    await c.insertMany(Array.from({ length: 600 }, (_, i) => ({ _id: i, t: `t${i % 3}`, m: i % 2 ? 'live' : 'test', k: `k${i % 50}`, at: i })) as never[]);
    await c.createIndex({ t: 1, m: 1, k: 1, at: 1 });
    const r = await db.command({ explain: { find: 'threes', filter: { t: 't1', m: 'test', k: 'k4' } }, verbosity: 'executionStats' });
    expect(JSON.stringify(r.queryPlanner.winningPlan)).toContain('IXSCAN');
    const expected = (await c.find({}).toArray()).filter((d) => d.t === 't1' && d.m === 'test' && d.k === 'k4').length;
    expect(r.executionStats.nReturned).toBe(expected);
    expect(r.executionStats.totalDocsExamined).toBe(expected);
    if (target.embedded) {
      const before = target.embedded.stats();
      expect(await c.countDocuments({ t: 't2', m: 'live' })).toBe(100);
      expect(target.embedded.stats().docsExamined - before.docsExamined).toBe(100);
    }
  });

  it('$in, compound equality, a compound prefix and multikey fields use indexes', async () => {
    const inq = await explain({ email: { $in: ['p1@x', 'p2@x', 'nobody@x'] } });
    expect(inq.usesIndex).toBe(true);
    expect(inq.stats.nReturned).toBe(2);
    expect(inq.stats.totalDocsExamined).toBe(2);
    const compound = await explain({ team: 't7', status: 'open' });
    expect(compound.usesIndex).toBe(true);
    expect(compound.stats.totalDocsExamined).toBe(compound.stats.nReturned);
    expect(compound.stats.nReturned).toBe((await people.find({ team: 't7' }).toArray()).filter((d) => d.status === 'open').length);
    const prefix = await explain({ team: 't7' });
    expect(prefix.usesIndex).toBe(true);
    expect(prefix.stats.totalDocsExamined).toBe(N / 100);
    const multi = await explain({ tags: 'b3' });
    expect(multi.usesIndex).toBe(true);
    expect(multi.stats.totalDocsExamined).toBeLessThan(N / 5);
  });

  it('a query on an unindexed field scans, and gives the same answers', async () => {
    const e = await explain({ score: 5 });
    expect(e.usesIndex).toBe(false);
    expect(e.stats.totalDocsExamined).toBe(N);
    expect(e.stats.nReturned).toBe(N / 1000);
    const viaIndex = await people.find({ team: 't3', status: 'closed', score: { $lt: 500 } }).sort({ _id: 1 }).toArray();
    const viaScan = (await people.find({ score: { $lt: 500 } }).sort({ _id: 1 }).toArray()).filter((d) => d.team === 't3' && d.status === 'closed');
    expect(viaIndex).toEqual(viaScan);
  });

  it('keeps indexes right through updates and deletes', async () => {
    await people.updateOne({ email: 'p5@x' }, { $set: { email: 'moved@x', team: 'tz' } });
    expect(await people.findOne({ email: 'p5@x' })).toBeNull();
    expect(await people.findOne({ email: 'moved@x' })).toMatchObject({ _id: 5 });
    expect(await people.countDocuments({ team: 'tz', status: 'closed' })).toBe(1);
    await people.deleteOne({ email: 'moved@x' });
    expect(await people.countDocuments({ team: 'tz' })).toBe(0);
    await people.insertOne({ _id: 5 as any, email: 'p5@x', team: 't5', status: 'closed', score: 5, tags: [] });
    expect(await people.countDocuments({ email: 'p5@x' })).toBe(1);
  });
});
