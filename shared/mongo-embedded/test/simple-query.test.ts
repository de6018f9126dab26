import { makeQuery } from '../src/mingo';
import { simpleMatcher, simpleProjection } from '../src/simple-query';

/** The shortcut must answer exactly as mingo's general matcher and projection do (docs/adr/0019). */
const DOCS = [
  { _id: 'a', teamId: 't1', mode: 'test', status: 'open', tags: ['x', 'y'], deleted: false, n: 1 },
  { _id: 'b', teamId: 't1', mode: 'live', status: 'closed', tags: [], deleted: true, n: 2 },
  { _id: 'c', teamId: 't2', mode: 'test', status: 'open', tags: ['y'], deleted: false },
  { _id: 'd', teamId: 't1', mode: 'test', status: ['open', 'new'], deleted: false, nested: { status: 'open' } },
  { _id: 'e', teamId: 't1', mode: 'test', tags: [['x']], deleted: 'false' },
  { teamId: 't1', mode: 'test', status: 'open' },
];

describe('simpleMatcher', () => {
  const SIMPLE = [
    { teamId: 't1' },
    { teamId: 't1', mode: 'test', status: 'open' },
    { tags: 'x' },
    { tags: 'y', deleted: false },
    { deleted: false },
    { deleted: 'false' },
    { status: { $eq: 'new' } },
    { _id: { $in: ['a', 'c', 'zz'] } },
    { tags: { $in: ['x', 'nothing'] }, teamId: 't1' },
    { status: { $in: [] } },
    { missing: 'x' },
  ];
  it.each(SIMPLE.map((f) => [JSON.stringify(f), f]))('%s matches what mingo matches', (_name, filter) => {
    const test = simpleMatcher(filter)!;
    expect(test).not.toBeNull();
    const q = makeQuery(filter);
    expect(DOCS.map((d) => test(d))).toEqual(DOCS.map((d) => q.test(d)));
  });
  it.each([
    { status: null },
    { n: 1 },
    { 'nested.status': 'open' },
    { $or: [{ status: 'open' }] },
    { status: { $ne: 'open' } },
    { status: { $in: ['open', null] } },
    { status: { $eq: 'open', $exists: true } },
    { nested: { status: 'open' } },
    { status: /op/ },
  ])('%j takes the general path', (filter) => {
    expect(simpleMatcher(filter)).toBeNull();
  });
});

describe('simpleProjection', () => {
  const general = (projection: Record<string, unknown>) =>
    makeQuery({}).find<Record<string, unknown>>(DOCS, projection as never).all();
  it.each([{ status: 0 }, { tags: 0, n: 0 }, { status: 1 }, { status: 1, tags: 1 }, { status: 1, _id: 0 }, { _id: 0 }, { _id: 1 }, { teamId: false }])(
    '%j projects what mingo projects, _id first',
    (projection) => {
      const p = simpleProjection(projection)!;
      expect(p).not.toBeNull();
      const ours = DOCS.map(p);
      expect(ours).toEqual(general(projection));
      for (const d of ours) if ('_id' in d) expect(Object.keys(d)[0]).toBe('_id');
    },
  );
  it.each([{ status: 1, tags: 0 }, { 'nested.status': 1 }, { tags: { $slice: 1 } }, { 'tags.$': 1 }, { status: 2 }])('%j takes the general path', (projection) => {
    expect(simpleProjection(projection)).toBeNull();
  });
});
