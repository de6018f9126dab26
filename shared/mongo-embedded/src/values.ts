/**
 * Value helpers: canonical equality keys (MongoDB equality: 1 == 1.0 == Long(1)), deep clones that
 * keep immutable BSON values shared, and dotted-path resolution with MongoDB's array traversal.
 */
export type Doc = Record<string, any>;

export function isPlainObject(v: unknown): v is Doc {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && !('_bsontype' in (v as object));
}

function numKey(n: number): string {
  if (Number.isNaN(n)) return 'nNaN';
  return 'n' + (n === 0 ? '0' : String(n));
}

/** A string that is equal for two values exactly when MongoDB considers them equal. */
export function keyOf(v: unknown): string {
  if (v === undefined || v === null) return 'N';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'number':
      return numKey(v);
    case 'boolean':
      return v ? 'T' : 'F';
    case 'bigint':
      return numKey(Number(v));
    case 'object':
      break;
    default:
      return 'u' + String(v);
  }
  if (Array.isArray(v)) {
    let s = '[';
    for (let i = 0; i < v.length; i++) s += (i ? ',' : '') + keyOf(v[i]);
    return s + ']';
  }
  if (v instanceof Date) return 'd' + v.getTime();
  if (v instanceof RegExp) return 'r/' + v.source + '/' + v.flags;
  const t = (v as { _bsontype?: string })._bsontype;
  if (t) {
    switch (t) {
      case 'ObjectId':
        return 'o' + (v as { toHexString(): string }).toHexString();
      case 'Long':
      case 'Int32':
      case 'Double':
        return numKey(Number((v as { valueOf(): unknown }).valueOf?.() ?? Number(String(v))));
      case 'Decimal128': {
        const n = Number(String(v));
        return Number.isFinite(n) ? numKey(n) : 'D' + String(v);
      }
      case 'Binary': {
        const b = v as { sub_type: number; buffer: Uint8Array };
        return 'x' + b.sub_type + ':' + Buffer.from(b.buffer).toString('base64');
      }
      case 'Timestamp':
        return 't' + String(v);
      case 'BSONRegExp': {
        const r = v as { pattern: string; options: string };
        return 'r/' + r.pattern + '/' + r.options;
      }
      case 'MinKey':
        return '<min>';
      case 'MaxKey':
        return '<max>';
      default:
        return t + ':' + JSON.stringify(v);
    }
  }
  if (Buffer.isBuffer(v) || v instanceof Uint8Array) return 'x0:' + Buffer.from(v as Uint8Array).toString('base64');
  let s = '{';
  let first = true;
  for (const k of Object.keys(v)) {
    const x = (v as Doc)[k];
    if (x === undefined) continue;
    s += (first ? '' : ',') + JSON.stringify(k) + ':' + keyOf(x);
    first = false;
  }
  return s + '}';
}

/** Deep clone of plain objects, arrays and Dates; other BSON values are immutable and shared. */
export function clone<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(clone) as T;
  if (v instanceof Date) return new Date(v.getTime()) as T;
  if (!isPlainObject(v)) return v;
  const out: Doc = {};
  for (const k of Object.keys(v)) out[k] = clone((v as Doc)[k]);
  return out as T;
}

const MISSING = Symbol('missing');

/**
 * Values found at a dotted path, traversing arrays like MongoDB does for queries and indexes.
 * A missing path yields [undefined]. Arrays at the leaf are returned whole (callers expand them).
 */
export function valuesAt(doc: unknown, path: string): unknown[] {
  const parts = path.split('.');
  const out: unknown[] = [];
  walk(doc, parts, 0, out);
  if (out.length === 0) out.push(undefined);
  return out;
}

function walk(cur: unknown, parts: string[], i: number, out: unknown[]): void {
  if (i === parts.length) {
    out.push(cur);
    return;
  }
  if (cur === null || typeof cur !== 'object') return;
  const p = parts[i];
  if (Array.isArray(cur)) {
    if (/^\d+$/.test(p)) {
      const el = cur[Number(p)];
      if (el !== undefined) walk(el, parts, i + 1, out);
      return;
    }
    for (const el of cur) if (el !== null && typeof el === 'object' && !Array.isArray(el)) walk(el, parts, i, out);
    return;
  }
  const next = (cur as Doc)[p];
  if (next === undefined) return;
  walk(next, parts, i + 1, out);
}

/** First value at a dotted path without array traversal (undefined when missing). */
export function getPath(doc: unknown, path: string): unknown {
  let cur: any = doc;
  for (const p of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = cur[p];
  }
  return cur;
}

export function setPath(doc: Doc, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur: any = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    if (cur[parts[i]] === null || typeof cur[parts[i]] !== 'object') cur[parts[i]] = {};
    cur = cur[parts[i]];
  }
  cur[parts[parts.length - 1]] = value;
}

export { MISSING };

/** MongoDB's cross-type sort order (https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/). */
function typeRank(v: unknown): number {
  if (v === undefined || v === null) return 1;
  switch (typeof v) {
    case 'number':
    case 'bigint':
      return 2;
    case 'string':
      return 3;
    case 'boolean':
      return 8;
  }
  if (Array.isArray(v)) return 5;
  if (v instanceof Date) return 9;
  if (v instanceof RegExp) return 11;
  const t = (v as { _bsontype?: string })._bsontype;
  switch (t) {
    case 'MinKey':
      return 0;
    case 'Long':
    case 'Int32':
    case 'Double':
    case 'Decimal128':
      return 2;
    case 'BSONSymbol':
      return 3;
    case 'Binary':
      return 6;
    case 'ObjectId':
      return 7;
    case 'Timestamp':
      return 10;
    case 'BSONRegExp':
      return 11;
    case 'MaxKey':
      return 12;
    case undefined:
      return Buffer.isBuffer(v) || v instanceof Uint8Array ? 6 : 4;
    default:
      return 4;
  }
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : Number(typeof v === 'bigint' ? v : String(v));
}

/** Compares two BSON values the way MongoDB orders them in sorts and range queries. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
    case 1:
    case 12:
      return 0;
    case 2: {
      const x = num(a);
      const y = num(b);
      if (Number.isNaN(x)) return Number.isNaN(y) ? 0 : -1;
      if (Number.isNaN(y)) return 1;
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 3: {
      const x = String(a);
      const y = String(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 4: {
      const ka = Object.keys(a as Doc);
      const kb = Object.keys(b as Doc);
      for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
        const c = compareValues((a as Doc)[ka[i]], (b as Doc)[kb[i]]);
        if (ka[i] !== kb[i]) {
          const tr = typeRank((a as Doc)[ka[i]]) - typeRank((b as Doc)[kb[i]]);
          if (tr) return tr < 0 ? -1 : 1;
          return ka[i] < kb[i] ? -1 : 1;
        }
        if (c) return c;
      }
      return ka.length - kb.length;
    }
    case 5: {
      const x = a as unknown[];
      const y = b as unknown[];
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const c = compareValues(x[i], y[i]);
        if (c) return c;
      }
      return x.length - y.length;
    }
    case 6: {
      const x = Buffer.from((a as { buffer?: Uint8Array }).buffer ?? (a as Uint8Array));
      const y = Buffer.from((b as { buffer?: Uint8Array }).buffer ?? (b as Uint8Array));
      if (x.length !== y.length) return x.length - y.length;
      const sa = (a as { sub_type?: number }).sub_type ?? 0;
      const sb = (b as { sub_type?: number }).sub_type ?? 0;
      if (sa !== sb) return sa - sb;
      return Buffer.compare(x, y);
    }
    case 7: {
      const x = (a as { toHexString(): string }).toHexString();
      const y = (b as { toHexString(): string }).toHexString();
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 8:
      return a === b ? 0 : a ? 1 : -1;
    case 9:
      return (a as Date).getTime() - (b as Date).getTime();
    case 10: {
      const x = a as { high: number; low: number };
      const y = b as { high: number; low: number };
      return (x.high >>> 0) - (y.high >>> 0) || (x.low >>> 0) - (y.low >>> 0);
    }
    default: {
      const x = String(a);
      const y = String(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
  }
}

/** The value a document sorts by for one sort key: min (ascending) or max (descending) of array elements. */
function sortKey(doc: unknown, path: string, parts: string[] | null, dir: number): unknown {
  if (parts === null) {
    const v = (doc as Doc)[path];
    if (!Array.isArray(v)) return v;
  }
  const vals: unknown[] = [];
  for (const v of valuesAt(doc, path)) {
    if (Array.isArray(v)) {
      if (v.length === 0) vals.push(undefined);
      else for (const e of v) vals.push(e);
    } else vals.push(v);
  }
  let best = vals[0];
  for (let i = 1; i < vals.length; i++) {
    const c = compareValues(vals[i], best);
    if (dir > 0 ? c < 0 : c > 0) best = vals[i];
  }
  return best;
}

interface SortCell {
  r: number;
  p: number | string | null;
  v: unknown;
}

function cell(v: unknown): SortCell {
  const r = typeRank(v);
  switch (r) {
    case 1:
      return { r, p: 0, v };
    case 2:
      return { r, p: Number.isNaN(num(v)) ? -Infinity : num(v), v };
    case 3:
      return { r, p: String(v), v };
    case 7:
      return { r, p: (v as { toHexString(): string }).toHexString(), v };
    case 8:
      return { r, p: v ? 1 : 0, v };
    case 9:
      return { r, p: (v as Date).getTime(), v };
    default:
      return { r, p: null, v };
  }
}

/** Stable sort by a MongoDB sort specification ({ field: 1 | -1, ... }); returns null for $meta sorts. */
export function sortBySpec<T>(docs: T[], spec: Doc, limit = 0): T[] | null {
  const keys = Object.keys(spec);
  const dirs: number[] = [];
  for (const k of keys) {
    const d = spec[k];
    if (typeof d === 'number' && d !== 0 && !Number.isNaN(d)) dirs.push(d > 0 ? 1 : -1);
    else return null;
  }
  const parts = keys.map((k) => (k.includes('.') ? k.split('.') : null));
  const n = keys.length;
  type Row = { d: T; i: number; k: SortCell[] };
  const decorate = (d: T, i: number): Row => {
    const k: SortCell[] = new Array(n);
    for (let j = 0; j < n; j++) k[j] = cell(sortKey(d, keys[j], parts[j], dirs[j]));
    return { d, i, k };
  };
  const cmp = (x: Row, y: Row): number => {
    for (let j = 0; j < n; j++) {
      const a = x.k[j];
      const b = y.k[j];
      let c: number;
      if (a.r !== b.r) c = a.r < b.r ? -1 : 1;
      else if (a.p !== null && b.p !== null) c = a.p < b.p ? -1 : a.p > b.p ? 1 : 0;
      else c = compareValues(a.v, b.v);
      if (c) return dirs[j] * c;
    }
    return x.i - y.i;
  };
  if (limit > 0 && limit * 8 < docs.length) {
    // Top-k: keep the best `limit` rows in order (binary insertion), O(n log k).
    const top: Row[] = [];
    for (let i = 0; i < docs.length; i++) {
      const row = decorate(docs[i], i);
      if (top.length === limit && cmp(row, top[limit - 1]) >= 0) continue;
      let lo = 0;
      let hi = top.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cmp(top[mid], row) <= 0) lo = mid + 1;
        else hi = mid;
      }
      top.splice(lo, 0, row);
      if (top.length > limit) top.pop();
    }
    return top.map((x) => x.d);
  }
  const decorated = docs.map(decorate);
  decorated.sort(cmp);
  return decorated.map((x) => x.d);
}
