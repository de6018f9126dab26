/**
 * Conformance: a range ($gt/$gte/$lt/$lte) on the field after an index's equality prefix is answered
 * from the index in order (docs/adr/0042), and answers exactly what a scan would, whatever was
 * written before: updates, deletes, values of other types, arrays and transactions.
 */
import { Collection, Db, MongoClient } from 'mongodb';
import { Target, useTargetDb } from './target';

let target: Target;
let client: MongoClient;
let db: Db;

useTargetDb('conf_range', (t) => void ({ target, client, db } = t));

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

async function fresh(name: string): Promise<Collection> {
  const c = db.collection(name);
  await c.drop().catch(() => undefined);
  return c;
}

async function explain(coll: string, filter: Record<string, unknown>) {
  const r = await db.command({ explain: { find: coll, filter }, verbosity: 'executionStats' });
  return { stats: r.executionStats, plan: JSON.stringify(r.queryPlanner.winningPlan) };
}

const ids = (docs: { _id: unknown }[]) => docs.map((d) => d._id).sort();

describe('range scans', () => {
  it('a date range after an equality prefix examines only the documents in the range', async () => {
    const c = await fresh('facts');
    await c.createIndex({ team: 1, mode: 1, at: 1, status: 1 });
    await c.insertMany(Array.from({ length: 3_000 }, (_, i) => ({ _id: `f${i}`, team: `t${i % 3}`, mode: i % 2 ? 'live' : 'test', at: new Date(T0 + (i % 365) * DAY), status: 'open' })) as never[]);
    const filter = { team: 't1', mode: 'live', at: { $gte: new Date(T0 + 10 * DAY), $lt: new Date(T0 + 17 * DAY) } };
    const expected = (await c.find({}).toArray()).filter((d) => d.team === 't1' && d.mode === 'live' && +d.at >= T0 + 10 * DAY && +d.at < T0 + 17 * DAY);
    expect(expected.length).toBeGreaterThan(0);
    const e = await explain('facts', filter);
    expect(e.plan).toContain('IXSCAN');
    expect(e.stats.nReturned).toBe(expected.length);
    if (target.embedded) expect(e.stats.totalDocsExamined).toBe(expected.length);
    expect(ids(await c.find(filter).toArray())).toEqual(ids(expected));
    // The same range in an aggregation's first $match.
    const [row] = await c.aggregate([{ $match: filter }, { $group: { _id: null, n: { $sum: 1 } } }]).toArray();
    expect(row.n).toBe(expected.length);
  });

  it('answers as a scan would through inserts, updates and deletes, on bounds of every kind', async () => {
    const c = await fresh('mixed');
    await c.createIndex({ g: 1, v: 1 });
    await c.createIndex({ n: 1 });
    // A deterministic pseudo-random walk of writes; `v` is a date, a number, a string, null or missing.
    let seed = 7;
    const rnd = (k: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % k;
    };
    const value = () => {
      switch (rnd(6)) {
        case 0:
        case 1:
          return new Date(T0 + rnd(40) * DAY);
        case 2:
        case 3:
          return rnd(40) - 5;
        case 4:
          return `s${rnd(40)}`;
        default:
          return null;
      }
    };
    for (let i = 0; i < 400; i++) {
      const doc: Record<string, unknown> = { _id: i, g: `g${rnd(3)}`, n: rnd(100) };
      if (rnd(10)) doc.v = value();
      await c.insertOne(doc as never);
    }
    const check = async () => {
      const all = await c.find({}).toArray();
      const bounds: Record<string, unknown>[] = [
        { $gte: new Date(T0 + 5 * DAY), $lt: new Date(T0 + 20 * DAY) },
        { $gt: new Date(T0 + 5 * DAY) },
        { $lte: new Date(T0 + 5 * DAY) },
        { $gt: 3, $lte: 20 },
        { $lt: 0 },
        { $gte: 10, $gt: 12, $lt: 30, $lte: 25 },
      ];
      for (const b of bounds) {
        for (const g of ['g0', 'g1', 'g2']) {
          const filter = { g, v: b };
          const got = ids(await c.find(filter).toArray());
          const want = ids(all.filter((d) => d.g === g && inRange(d.v, b)));
          expect({ filter, got }).toEqual({ filter, got: want });
        }
      }
      // A range on an index's first field, alone and inside $and.
      expect(ids(await c.find({ n: { $gte: 20, $lt: 30 } }).toArray())).toEqual(ids(all.filter((d) => d.n >= 20 && d.n < 30)));
      expect(ids(await c.find({ $and: [{ n: { $gt: 90 } }, { g: 'g1' }] }).toArray())).toEqual(ids(all.filter((d) => d.n > 90 && d.g === 'g1')));
    };
    await check();
    for (let i = 0; i < 300; i++) {
      const id = rnd(450);
      switch (rnd(4)) {
        case 0:
          await c.updateOne({ _id: id as never }, { $set: { v: value() } });
          break;
        case 1:
          await c.updateOne({ _id: id as never }, { $set: { g: `g${rnd(3)}` } });
          break;
        case 2:
          await c.deleteOne({ _id: id as never });
          break;
        default:
          await c.replaceOne({ _id: id as never }, { g: `g${rnd(3)}`, n: rnd(100), v: value() }, { upsert: true });
      }
      if (i % 100 === 99) await check();
    }
  });

  it('a field that once held an array is matched as MongoDB matches arrays, not by one value', async () => {
    const c = await fresh('arrays');
    await c.createIndex({ g: 1, v: 1 });
    await c.insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: i, g: 'a', v: i })) as never[]);
    expect(await c.countDocuments({ g: 'a', v: { $gt: 5, $lt: 10 } })).toBe(4);
    // Some element is > 5 and some element is < 10: MongoDB matches it, though no one element does.
    await c.insertOne({ _id: 100, g: 'a', v: [1, 20] } as never);
    expect(ids(await c.find({ g: 'a', v: { $gt: 5, $lt: 10 } }).toArray())).toEqual(ids([6, 7, 8, 9, 100].map((_id) => ({ _id }))));
  });

  it('sees a transaction its own uncommitted writes and not another one', async () => {
    const c = await fresh('txn');
    await c.createIndex({ g: 1, at: 1 });
    await c.insertMany(Array.from({ length: 30 }, (_, i) => ({ _id: i, g: 'a', at: new Date(T0 + i * DAY) })) as never[]);
    const range = { g: 'a', at: { $gte: new Date(T0 + 10 * DAY), $lt: new Date(T0 + 20 * DAY) } };
    const session = client.startSession();
    try {
      await session.withTransaction(async () => {
        await c.insertOne({ _id: 100, g: 'a', at: new Date(T0 + 15 * DAY) } as never, { session });
        await c.updateOne({ _id: 12 as never }, { $set: { at: new Date(T0 + 25 * DAY) } }, { session });
        await c.deleteOne({ _id: 13 as never }, { session });
        const inside = ids(await c.find(range, { session }).toArray());
        expect(inside).toEqual(ids([10, 11, 14, 15, 16, 17, 18, 19, 100].map((_id) => ({ _id }))));
        // Outside the transaction nothing has changed yet.
        expect(await c.countDocuments(range)).toBe(10);
      });
    } finally {
      await session.endSession();
    }
    expect(ids(await c.find(range).toArray())).toEqual(ids([10, 11, 14, 15, 16, 17, 18, 19, 100].map((_id) => ({ _id }))));
  });
});

/** MongoDB's range semantics for a scalar or missing value: compared within the bound's type only. */
function inRange(v: unknown, b: Record<string, unknown>): boolean {
  for (const [op, x] of Object.entries(b)) {
    const sameKind = x instanceof Date ? v instanceof Date : typeof v === 'number';
    if (!sameKind) return false;
    const a = +(v as number);
    const y = +(x as number);
    if (op === '$gt' && !(a > y)) return false;
    if (op === '$gte' && !(a >= y)) return false;
    if (op === '$lt' && !(a < y)) return false;
    if (op === '$lte' && !(a <= y)) return false;
  }
  return true;
}

describe('leading $match stages', () => {
  it('coalesce, so a scope $match followed by a range $match is one range scan', async () => {
    const c = await fresh('coalesce');
    await c.createIndex({ team: 1, at: 1 });
    await c.insertMany(Array.from({ length: 2_000 }, (_, i) => ({ _id: i, team: `t${i % 2}`, at: new Date(T0 + (i % 100) * DAY), n: i })) as never[]);
    const week = { $gte: new Date(T0 + 7 * DAY), $lt: new Date(T0 + 14 * DAY) };
    const before = target.embedded?.stats();
    const rows = await c.aggregate([{ $match: { team: 't1' } }, { $match: { at: week } }, { $group: { _id: null, n: { $sum: 1 }, s: { $sum: '$n' } } }]).toArray();
    const examined = target.embedded && before ? target.embedded.stats().docsExamined - before.docsExamined : null;
    const want = (await c.find({}).toArray()).filter((d) => d.team === 't1' && +d.at >= T0 + 7 * DAY && +d.at < T0 + 14 * DAY);
    expect(rows).toEqual([{ _id: null, n: want.length, s: want.reduce((a, d) => a + d.n, 0) }]);
    if (examined !== null) expect(examined).toBe(want.length);
    // The same field in two stages is both conditions.
    const both = await c.aggregate([{ $match: { n: { $gte: 100 } } }, { $match: { n: { $lt: 110 } } }]).toArray();
    expect(both.map((d) => d.n)).toEqual([100, 101, 102, 103, 104, 105, 106, 107, 108, 109]);
  });
});

describe('sorted pages from an index in order', () => {
  const cmp = (sort: [string, 1 | -1][]) => (a: Record<string, any>, b: Record<string, any>) => {
    for (const [k, d] of sort) {
      const x = +a[k];
      const y = +b[k];
      if (x !== y) return (x < y ? -1 : 1) * d;
      if (k === '_id') continue;
    }
    return 0;
  };

  it('a page sorted by the field after the equality prefix examines about the page, and equals a sort of all matches', async () => {
    const c = await fresh('pages');
    await c.createIndex({ team: 1, status: 1, at: -1, _id: -1 });
    // Many equal `at` values, so pages end inside runs of ties.
    await c.insertMany(Array.from({ length: 1_500 }, (_, i) => ({ _id: i, team: `t${i % 2}`, status: i % 3 ? 'open' : 'closed', at: new Date(T0 + Math.floor(i / 10) * DAY), n: i % 7 })) as never[]);
    const all = await c.find({}).toArray();
    const cases: [[string, 1 | -1][], number, number][] = [[[['at', -1], ['_id', -1]], 0, 20], [[['at', 1]], 0, 5]];
    // Pages that end inside a run of equal `at` values, with the tie broken either way.
    for (const tie of [1, -1] as const) for (const skip of [0, 3]) for (const limit of [1, 2, 4, 5, 7, 11]) cases.push([[['at', -1], ['_id', tie]], skip, limit], [[['at', 1], ['_id', tie]], skip, limit]);
    for (const [sort, skip, limit] of cases) {
      const filter = { team: 't1', status: 'open' };
      const before = target.embedded?.stats();
      const got = await c.find(filter).sort(Object.fromEntries(sort)).skip(skip).limit(limit).toArray();
      const examined = target.embedded && before ? target.embedded.stats().docsExamined - before.docsExamined : null;
      const matching = all.filter((d) => d.team === 't1' && d.status === 'open');
      const want = [...matching].sort(cmp(sort)).slice(skip, skip + limit);
      if (sort.length === 1) expect(got.map((d) => +d.at)).toEqual(want.map((d) => +d.at));
      else expect(got.map((d) => d._id)).toEqual(want.map((d) => d._id));
      // The page plus the ties at its end, not every match.
      if (examined !== null) expect(examined).toBeLessThan(skip + limit + 20);
    }
    // Another condition is tested on the way; a range on the sort field bounds the walk.
    const extra = await c.find({ team: 't0', status: 'open', n: 3 }).sort({ at: -1, _id: -1 }).limit(10).toArray();
    expect(extra.map((d) => d._id)).toEqual(all.filter((d) => d.team === 't0' && d.status === 'open' && d.n === 3).sort(cmp([['at', -1], ['_id', -1]])).slice(0, 10).map((d) => d._id));
    const ranged = await c.find({ team: 't0', status: 'open', at: { $lt: new Date(T0 + 50 * DAY) } }).sort({ at: -1, _id: -1 }).limit(10).toArray();
    expect(ranged.map((d) => d._id)).toEqual(all.filter((d) => d.team === 't0' && d.status === 'open' && +d.at < T0 + 50 * DAY).sort(cmp([['at', -1], ['_id', -1]])).slice(0, 10).map((d) => d._id));
  });

  it('a document without the sort field (or with another type) keeps MongoDB order: missing sorts before dates', async () => {
    const c = await fresh('pages_missing');
    await c.createIndex({ team: 1, at: 1 });
    await c.insertMany(Array.from({ length: 40 }, (_, i) => ({ _id: i, team: 'a', at: new Date(T0 + i * DAY) })) as never[]);
    await c.insertOne({ _id: 100, team: 'a' } as never);
    await c.insertOne({ _id: 101, team: 'a', at: 5 } as never);
    const asc = await c.find({ team: 'a' }).sort({ at: 1 }).limit(3).toArray();
    expect(asc.map((d) => d._id)).toEqual([100, 101, 0]);
    const desc = await c.find({ team: 'a' }).sort({ at: -1 }).limit(2).toArray();
    expect(desc.map((d) => d._id)).toEqual([39, 38]);
  });

  it('inside a transaction that wrote to the collection, the page includes its writes', async () => {
    const c = await fresh('pages_txn');
    await c.createIndex({ team: 1, at: 1 });
    await c.insertMany(Array.from({ length: 40 }, (_, i) => ({ _id: i, team: 'a', at: new Date(T0 + i * DAY) })) as never[]);
    const session = client.startSession();
    try {
      await session.withTransaction(async () => {
        await c.insertOne({ _id: 200, team: 'a', at: new Date(T0 + 100 * DAY) } as never, { session });
        const page = await c.find({ team: 'a' }, { session }).sort({ at: -1 }).limit(2).toArray();
        expect(page.map((d) => d._id)).toEqual([200, 39]);
      });
    } finally {
      await session.endSession();
    }
  });
});

describe('index choice', () => {
  it('a range on the next field of a compound index beats a whole index on the prefix alone', async () => {
    const c = await fresh('choice');
    await c.createIndex({ team: 1 });
    await c.createIndex({ team: 1, at: 1 });
    await c.insertMany(Array.from({ length: 1_000 }, (_, i) => ({ _id: i, team: `t${i % 2}`, at: new Date(T0 + (i % 100) * DAY) })) as never[]);
    const e = await explain('choice', { team: 't0', at: { $gte: new Date(T0 + 10 * DAY), $lt: new Date(T0 + 12 * DAY) } });
    expect(e.stats.nReturned).toBe(10);
    if (target.embedded) expect(e.stats.totalDocsExamined).toBe(10);
  });
});

describe('a $group after the range', () => {
  it('runs compiled for a report shape, and in the general engine when a document is outside it, with the same answer', async () => {
    const c = await fresh('grouped');
    await c.createIndex({ team: 1, at: 1 });
    await c.insertMany(Array.from({ length: 500 }, (_, i) => ({ _id: i, team: 't', at: new Date(T0 + (i % 50) * DAY), status: i % 2 ? 'open' : 'closed', tags: 'x' })) as never[]);
    const pipeline = [
      { $match: { team: 't' } },
      { $match: { at: { $gte: new Date(T0), $lt: new Date(T0 + 10 * DAY) } } },
      { $group: { _id: { s: '$status', d: { $dateToString: { format: '%Y-%m-%d', date: '$at' } }, t: '$tags' }, n: { $sum: 1 } } },
      { $sort: { '_id.d': 1, '_id.s': 1 } },
    ];
    const before = target.embedded?.stats().compiledGroups ?? 0;
    const rows = await c.aggregate(pipeline).toArray();
    expect(rows).toHaveLength(10);
    expect(rows[0]).toEqual({ _id: { s: 'closed', d: '2026-01-01', t: 'x' }, n: 10 });
    if (target.embedded) expect(target.embedded.stats().compiledGroups).toBe(before + 1);
    // One document's group key is now an array: MongoDB groups by the whole array.
    await c.updateOne({ _id: 0 as never }, { $set: { tags: ['x', 'y'] } });
    const again = await c.aggregate(pipeline).toArray();
    expect(again).toHaveLength(11);
    expect(again.find((r) => Array.isArray(r._id.t))).toEqual({ _id: { s: 'closed', d: '2026-01-01', t: ['x', 'y'] }, n: 1 });
    if (target.embedded) expect(target.embedded.stats().compiledGroups).toBe(before + 1);
  });
});
