/**
 * The find path's shortcut for the queries services send most (docs/adr/0019): a filter of top-level
 * fields each equal to a string or boolean (or `$in` a list of them), and a projection that only
 * includes or only excludes top-level fields. They are answered with plain comparisons instead of
 * mingo's general matcher and projection; anything else returns null and takes the general path.
 */
import { isPlainObject, type Doc } from './values';

type Scalar = string | boolean;
const isScalar = (v: unknown): v is Scalar => typeof v === 'string' || typeof v === 'boolean';
const isPlainField = (k: string) => k.length > 0 && k.charCodeAt(0) !== 36 && !k.includes('.');

/** MongoDB's equality on one field: the value itself, or an element of an array value. */
const holds = (v: unknown, wanted: Scalar) => v === wanted || (Array.isArray(v) && v.includes(wanted));

/** A predicate for `filter`, or null when it is not a simple equality filter. */
export function simpleMatcher(filter: Doc): ((doc: Doc) => boolean) | null {
  const tests: ((doc: Doc) => boolean)[] = [];
  for (const k of Object.keys(filter)) {
    if (!isPlainField(k)) return null;
    const want = filter[k];
    if (isScalar(want)) {
      tests.push((d) => holds(d[k], want));
      continue;
    }
    if (!isPlainObject(want)) return null;
    const ops = Object.keys(want);
    if (ops.length !== 1) return null;
    if (ops[0] === '$eq' && isScalar(want.$eq)) {
      const w = want.$eq;
      tests.push((d) => holds(d[k], w));
    } else if (ops[0] === '$in' && Array.isArray(want.$in) && want.$in.every(isScalar)) {
      const set = new Set<unknown>(want.$in);
      tests.push((d) => {
        const v = d[k];
        return set.has(v) || (Array.isArray(v) && v.some((x) => set.has(x)));
      });
    } else return null;
  }
  return (d) => {
    for (const t of tests) if (!t(d)) return false;
    return true;
  };
}

/** A projection of `{field: 0, …}` or `{field: 1, …}` (with `_id: 0` allowed in an inclusion), or null. */
export function simpleProjection(projection: Doc): ((doc: Doc) => Doc) | null {
  let include: boolean | null = null;
  let keepId = true;
  const fields = new Set<string>();
  for (const k of Object.keys(projection)) {
    const v = projection[k];
    const on = v === 1 || v === true ? true : v === 0 || v === false ? false : null;
    if (on === null || !isPlainField(k)) return null;
    if (k === '_id') {
      keepId = on;
      continue;
    }
    if (include === null) include = on;
    else if (include !== on) return null;
    fields.add(k);
  }
  if (include === null) {
    // Only `_id` named: `{_id: 0}` excludes it, `{_id: 1}` keeps only it.
    if (keepId) return (d) => ('_id' in d ? { _id: d._id } : {});
    return (d) => copy(d, (k) => k !== '_id');
  }
  if (include) return (d) => copy(d, (k) => (k === '_id' ? keepId : fields.has(k)));
  if (!keepId) fields.add('_id');
  return (d) => copy(d, (k) => !fields.has(k));
}

/** The fields `keep` accepts, `_id` first (as MongoDB answers). */
function copy(d: Doc, keep: (k: string) => boolean): Doc {
  const out: Doc = {};
  if ('_id' in d && keep('_id')) out._id = d._id;
  for (const k of Object.keys(d)) if (k !== '_id' && keep(k)) out[k] = d[k];
  return out;
}
