/**
 * The compiled $group (src/fast-group.ts) answers exactly what the general engine (mingo) answers for
 * every stage and document it accepts, and refuses the rest, so which path ran never shows.
 */
import { compileGroup, Unsupported } from '../src/fast-group';
import { makeAggregator } from '../src/mingo';

const T0 = Date.UTC(2026, 2, 28, 22, 30);
const HOUR = 3_600_000;

/** Documents with every kind of value the reports meet: dates, nulls, strings, numbers, missing fields. */
function docs(n: number): Record<string, unknown>[] {
  let seed = 11;
  const rnd = (k: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % k;
  };
  return Array.from({ length: n }, (_, i) => {
    const createdAt = new Date(T0 + rnd(24 * 30) * HOUR + rnd(60_000));
    const d: Record<string, unknown> = {
      _id: `f${i}`,
      status: ['new', 'open', 'pending', 'resolved', 'closed'][rnd(5)],
      priority: ['low', 'normal', 'high', 'urgent'][rnd(4)],
      createdAt,
      closedAt: rnd(3) ? null : new Date(createdAt.getTime() + rnd(100) * HOUR),
      firstResponseAt: rnd(4) ? new Date(createdAt.getTime() + rnd(90) * 60_000) : null,
      assignedTo: rnd(5) ? `m${rnd(4)}` : null,
      slaTier: [null, 'gold', 'silver', 'bronze', 'missed'][rnd(5)],
      points: rnd(7) - 2,
      nested: { score: rnd(10) },
    };
    if (rnd(10) === 0) delete d.slaTier;
    return d;
  });
}

const has = (f: string) => ({ $eq: [{ $type: `$${f}` }, 'date'] });
const STAGES: Record<string, unknown>[] = [
  // The analytics overview's shapes (services/ticketing/src/analytics/overview.ts).
  {
    _id: { s: '$status', p: '$priority' },
    n: { $sum: 1 },
    rN: { $sum: { $cond: [has('firstResponseAt'), 1, 0] } },
    rMs: { $sum: { $cond: [has('firstResponseAt'), { $subtract: ['$firstResponseAt', '$createdAt'] }, 0] } },
    cN: { $sum: { $cond: [has('closedAt'), 1, 0] } },
    cMs: { $sum: { $cond: [has('closedAt'), { $subtract: ['$closedAt', '$createdAt'] }, 0] } },
  },
  { _id: { s: '$status', p: '$priority', d: { $dateToString: { format: '%Y-%m-%d', date: '$createdAt' } } }, n: { $sum: 1 } },
  { _id: { $dateToString: { format: '%Y-%m-%d %H:%M:%S.%L', date: '$closedAt' } }, n: { $sum: 1 } },
  // The agents' shape.
  {
    _id: '$assignedTo',
    assigned: { $sum: 1 },
    closed: { $sum: { $cond: [{ $in: ['$status', ['resolved', 'closed']] }, 1, 0] } },
    response: { $avg: { $divide: [{ $subtract: ['$firstResponseAt', '$createdAt'] }, 1000] } },
    resolution: { $avg: { $divide: [{ $subtract: ['$closedAt', '$createdAt'] }, 1000] } },
    gold: { $sum: { $cond: [{ $eq: ['$slaTier', 'gold'] }, 1, 0] } },
  },
  // Other operators of the subset.
  { _id: null, total: { $sum: '$points' }, avg: { $avg: '$points' }, nested: { $sum: '$nested.score' }, none: { $avg: '$nothing' } },
  { _id: { $gt: ['$points', 0] }, n: { $sum: { $cond: { if: { $lte: ['$points', 2] }, then: 1, else: 0 } } }, ne: { $sum: { $cond: [{ $ne: ['$status', 'new'] }, 1, 0] } } },
  { _id: '$nothing', n: { $sum: 1 }, shifted: { $sum: { $cond: [{ $gte: ['$createdAt', new Date(T0 + 100 * HOUR)] }, 1, 0] } } },
  { _id: { $type: '$closedAt' }, n: { $sum: { $literal: 2 } }, lt: { $sum: { $cond: [{ $lt: ['$status', 'open'] }, 1, 0] } } },
];

const mingoGroup = (stage: Record<string, unknown>, input: Record<string, unknown>[]) => makeAggregator([{ $group: stage }]).run(input) as Record<string, unknown>[];
const byId = (rows: Record<string, unknown>[]) => [...rows].sort((a, b) => (JSON.stringify(a._id) < JSON.stringify(b._id) ? -1 : 1));

describe('compiled $group', () => {
  const input = docs(2_000);

  it.each(STAGES.map((s, i) => [i, s]))('stage %i answers as mingo does', (_i, stage) => {
    const group = compileGroup(stage);
    expect(group).not.toBeNull();
    const got = byId(group!(input));
    const want = byId(mingoGroup(stage as Record<string, unknown>, input));
    expect(got.length).toBeGreaterThan(0);
    expect(got).toHaveLength(want.length);
    for (let k = 0; k < got.length; k++) {
      expect(got[k]._id).toEqual(want[k]._id);
      for (const f of Object.keys(want[k])) {
        if (typeof want[k][f] === 'number') expect(got[k][f]).toBeCloseTo(want[k][f] as number, 9);
        else expect(got[k][f]).toEqual(want[k][f]);
      }
    }
  });

  it('refuses stages outside the subset at compile time', () => {
    for (const stage of [
      { n: { $sum: 1 } },
      { _id: '$a', first: { $first: '$b' } },
      { _id: '$a', n: { $sum: { $add: ['$b', 1] } } },
      { _id: { $concat: ['$a', '$b'] }, n: { $sum: 1 } },
      { _id: '$a', n: { $sum: { $dateToString: { format: '%Y', date: '$d', timezone: 'Europe/Paris' } } } },
      { _id: '$a', n: { $sum: { $dateToString: { format: '%U', date: '$d' } } } },
      { _id: '$a', n: { $sum: { $dateToString: { format: '100%%', date: '$d' } } } },
      { _id: '$$ROOT', n: { $sum: 1 } },
      { _id: '$a', 'x.y': { $sum: 1 } },
    ]) {
      expect(compileGroup(stage)).toBeNull();
    }
  });

  it('refuses documents outside the subset while running, so the caller runs mingo', () => {
    const group = compileGroup({ _id: '$a', n: { $sum: { $cond: [{ $eq: ['$b', 1] }, 1, 0] } }, t: { $sum: { $cond: [{ $eq: [{ $type: '$c' }, 'date'] }, 1, 0] } } })!;
    expect(group([{ a: 'x', b: 1, c: null }])).toEqual([{ _id: 'x', n: 1, t: 0 }]);
    // Missing is simply not equal to a value.
    expect(group([{ a: 'x', c: null }])).toEqual([{ _id: 'x', n: 0, t: 0 }]);
    // An array, a missing operand against null, a number's BSON type, a nested object.
    const nullish = compileGroup({ _id: null, n: { $sum: { $cond: [{ $eq: ['$b', null] }, 1, 0] } } })!;
    expect(() => nullish([{ a: 'x' }])).toThrow(Unsupported);
    for (const doc of [{ a: ['x'], b: 1, c: null }, { a: 'x', b: 1, c: 5 }, { a: { y: 1 }, b: 1, c: null }]) {
      expect(() => group([doc])).toThrow(Unsupported);
    }
  });
});
