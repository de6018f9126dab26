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
