/**
 * A `$group` stage compiled to plain functions (docs/adr/0042), for the shapes our services' reports
 * send: an `_id` of field paths and a few expressions, `$sum` and `$avg` accumulators. The general
 * aggregation engine (mingo) interprets every expression for every document, which made a group over
 * 100,000 facts take seconds. Anything outside this subset — an operator, a value type (numbers for
 * `$type`, objects, arrays, BSON wrappers) or a missing operand whose semantics differ between engines —
 * is refused, at compile time (null) or while running (`Unsupported`), and the caller runs the stage in
 * mingo instead, so the answer never depends on which path ran.
 */
import { compareValues, isPlainObject, keyOf, type Doc } from './values';

/** Thrown while grouping when a document holds something the compiled path does not model. */
export class Unsupported extends Error {}

type Expr = (doc: Doc) => unknown;
type Acc = { init: () => AccState; add: (s: AccState, doc: Doc) => void; done: (s: AccState) => unknown };
type AccState = { sum: number; n: number };

const refuse = (): never => {
  throw new Unsupported();
};

/** A value in the modelled domain: missing, null, boolean, number, string or date. */
function plain(v: unknown): unknown {
  if (v === undefined || v === null || v instanceof Date) return v;
  const t = typeof v;
  if (t === 'number' || t === 'string' || t === 'boolean') return v;
  return refuse();
}

function fieldPath(path: string): Expr | null {
  if (path.startsWith('$$') || path.length < 2) return null;
  const parts = path.slice(1).split('.');
  if (parts.some((p) => !p)) return null;
  if (parts.length === 1) {
    const f = parts[0];
    return (doc) => plain(doc[f]);
  }
  return (doc) => {
    let cur: unknown = doc;
    for (const p of parts) {
      if (cur === null || cur === undefined) return undefined;
      if (Array.isArray(cur)) return refuse();
      if (typeof cur !== 'object' || cur instanceof Date) return undefined;
      cur = (cur as Doc)[p];
    }
    return plain(cur);
  };
}

/** Truthiness as MongoDB's $cond has it (false, null, missing and 0 are false). */
function truthy(v: unknown): boolean {
  if (typeof v === 'number') return Number.isNaN(v) ? refuse() : v !== 0;
  return !(v === false || v === null || v === undefined);
}

const typeName = (v: unknown): string => {
  if (v === undefined) return 'missing';
  if (v === null) return 'null';
  if (v instanceof Date) return 'date';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  // int, long or double: the stored BSON type is not kept for a JS number.
  return refuse();
};

function args(spec: unknown, n: number): unknown[] | null {
  return Array.isArray(spec) && spec.length === n ? spec : null;
}

function compileOperator(op: string, spec: unknown): Expr | null {
  switch (op) {
    case '$literal': {
      const v = spec;
      if (!(v === null || v instanceof Date || ['number', 'string', 'boolean'].includes(typeof v))) return null;
      return () => v;
    }
    case '$cond': {
      const a = Array.isArray(spec) ? spec : isPlainObject(spec) && Object.keys(spec).length === 3 ? [spec.if, spec.then, spec.else] : null;
      if (!a || a.length !== 3) return null;
      const [c, t, e] = a.map(compile);
      if (!c || !t || !e) return null;
      return (doc) => (truthy(c(doc)) ? t(doc) : e(doc));
    }
    case '$eq':
    case '$ne':
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte': {
      const a = args(spec, 2)?.map(compile);
      if (!a || !a[0] || !a[1]) return null;
      const [x, y] = a as Expr[];
      const test = {
        $eq: (c: number) => c === 0,
        $ne: (c: number) => c !== 0,
        $gt: (c: number) => c > 0,
        $gte: (c: number) => c >= 0,
        $lt: (c: number) => c < 0,
        $lte: (c: number) => c <= 0,
      }[op];
      return (doc) => {
        const l = x(doc);
        const r = y(doc);
        if (l === undefined || r === undefined) {
          // Missing is not equal to any value; against null or in an order it differs across
          // versions and engines: leave that to mingo.
          const other = l === undefined ? r : l;
          if (other !== undefined && other !== null && (op === '$eq' || op === '$ne')) return op === '$ne';
          return refuse();
        }
        return test(compareValues(l, r));
      };
    }
    case '$in': {
      const a = args(spec, 2);
      if (!a || !Array.isArray(a[1])) return null;
      const x = compile(a[0]);
      const list = a[1];
      if (!x || !list.every((v) => v === null || ['number', 'string', 'boolean'].includes(typeof v))) return null;
      const keys = new Set(list.map(keyOf));
      return (doc) => {
        const v = x(doc);
        if (v === undefined) return refuse();
        return keys.has(keyOf(v));
      };
    }
    case '$type': {
      const x = compile(Array.isArray(spec) ? (spec.length === 1 ? spec[0] : undefined) : spec);
      if (!x) return null;
      return (doc) => typeName(x(doc));
    }
    case '$subtract':
      return arithmetic(spec, (l, r) => {
        if (typeof l === 'number' && typeof r === 'number') return l - r;
        if (l instanceof Date && r instanceof Date) return l.getTime() - r.getTime();
        if (l instanceof Date && typeof r === 'number') return new Date(l.getTime() - r);
        return refuse();
      });
    case '$divide':
      return arithmetic(spec, (l, r) => (typeof l !== 'number' || typeof r !== 'number' || r === 0 ? refuse() : l / r));
    case '$dateToString': {
      if (!isPlainObject(spec) || typeof spec.format !== 'string' || Object.keys(spec).some((k) => k !== 'format' && k !== 'date')) return null;
      const format = dateFormat(spec.format);
      const x = compile(spec.date);
      if (!format || !x) return null;
      return (doc) => {
        const d = x(doc);
        if (d === null || d === undefined) return null;
        if (!(d instanceof Date)) return refuse();
        return format(d);
      };
    }
    default:
      return null;
  }
}

/** A two-operand arithmetic operator: null when either operand is null or missing, else `fn`. */
function arithmetic(spec: unknown, fn: (l: unknown, r: unknown) => unknown): Expr | null {
  const a = args(spec, 2)?.map(compile);
  if (!a || !a[0] || !a[1]) return null;
  const [x, y] = a as Expr[];
  return (doc) => {
    const l = x(doc);
    const r = y(doc);
    return l === null || l === undefined || r === null || r === undefined ? null : fn(l, r);
  };
}

/** A `%Y-%m-%d`-style format in UTC; null for a token outside `%Y %m %d %H %M %S %L` (mingo drops `%%`'s percent). */
function dateFormat(format: string): ((d: Date) => string) | null {
  const parts: ((d: Date) => string)[] = [];
  const pad = (n: number, w: number) => String(n).padStart(w, '0');
  for (let i = 0; i < format.length; i++) {
    const ch = format[i];
    if (ch !== '%') {
      parts.push(() => ch);
      continue;
    }
    const t = format[++i];
    const token: Record<string, (d: Date) => string> = {
      Y: (d) => pad(d.getUTCFullYear(), 4),
      m: (d) => pad(d.getUTCMonth() + 1, 2),
      d: (d) => pad(d.getUTCDate(), 2),
      H: (d) => pad(d.getUTCHours(), 2),
      M: (d) => pad(d.getUTCMinutes(), 2),
      S: (d) => pad(d.getUTCSeconds(), 2),
      L: (d) => pad(d.getUTCMilliseconds(), 3),
    };
    if (!t || !token[t]) return null;
    parts.push(token[t]);
  }
  return (d) => {
    const y = d.getUTCFullYear();
    if (!(y >= 0 && y <= 9999)) return refuse();
    let s = '';
    for (const p of parts) s += p(d);
    return s;
  };
}

function compile(spec: unknown): Expr | null {
  if (typeof spec === 'string') return spec.startsWith('$') ? fieldPath(spec) : () => spec;
  if (spec === null || typeof spec === 'number' || typeof spec === 'boolean' || spec instanceof Date) return () => spec;
  if (!isPlainObject(spec)) return null;
  const keys = Object.keys(spec);
  if (keys.length !== 1 || !keys[0].startsWith('$')) return null;
  return compileOperator(keys[0], spec[keys[0]]);
}

function compileAccumulator(spec: unknown): Acc | null {
  if (!isPlainObject(spec) || Object.keys(spec).length !== 1) return null;
  const op = Object.keys(spec)[0];
  const x = compile(spec[op]);
  if (!x) return null;
  const init = () => ({ sum: 0, n: 0 });
  // $sum and $avg take numbers and skip every other value.
  const add = (s: AccState, doc: Doc) => {
    const v = x(doc);
    if (typeof v === 'number') {
      s.sum += v;
      s.n++;
    }
  };
  if (op === '$sum') return { init, add, done: (s) => s.sum };
  if (op === '$avg') return { init, add, done: (s) => (s.n ? s.sum / s.n : null) };
  return null;
}

/**
 * The stage as a function over the input documents, or null when it is outside the subset. The
 * function throws `Unsupported` when a document is; groups come out in first-seen order.
 */
export function compileGroup(stage: unknown): ((docs: Iterable<Doc>) => Doc[]) | null {
  if (!isPlainObject(stage) || !('_id' in stage)) return null;
  const idSpec = stage._id;
  let id: Expr | null;
  if (isPlainObject(idSpec) && Object.keys(idSpec).length > 0 && !Object.keys(idSpec)[0].startsWith('$')) {
    const fields = Object.keys(idSpec);
    if (fields.some((f) => f.startsWith('$') || f.includes('.'))) return null;
    const parts = fields.map((f) => compile(idSpec[f]));
    if (parts.some((p) => !p)) return null;
    id = (doc) => {
      const out: Doc = {};
      for (let i = 0; i < fields.length; i++) {
        const v = parts[i]!(doc);
        // MongoDB leaves a missing part out of the key; mingo may not: not modelled.
        if (v === undefined) return refuse();
        out[fields[i]] = v;
      }
      return out;
    };
  } else {
    const whole = compile(idSpec);
    if (!whole) return null;
    id = (doc) => {
      const v = whole(doc);
      return v === undefined ? null : v;
    };
  }
  const names = Object.keys(stage).filter((k) => k !== '_id');
  if (names.some((n) => n.startsWith('$') || n.includes('.'))) return null;
  const accs = names.map((n) => compileAccumulator(stage[n]));
  if (accs.some((a) => !a)) return null;
  return (docs) => {
    const groups = new Map<string, { id: unknown; states: AccState[] }>();
    for (const doc of docs) {
      const k = id!(doc);
      const key = keyOf(k);
      let g = groups.get(key);
      if (!g) {
        g = { id: k, states: accs.map((a) => a!.init()) };
        groups.set(key, g);
      }
      for (let i = 0; i < accs.length; i++) accs[i]!.add(g.states[i], doc);
    }
    const out: Doc[] = [];
    for (const g of groups.values()) {
      const row: Doc = { _id: g.id };
      for (let i = 0; i < names.length; i++) row[names[i]] = accs[i]!.done(g.states[i]);
      out.push(row);
    }
    return out;
  };
}
