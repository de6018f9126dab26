/**
 * In-memory storage: databases, collections, secondary indexes, per-session transaction overlays,
 * document locks and unique-key reservations. Every method here is synchronous: a command runs to
 * completion on the event loop before the next one starts, which makes each statement atomic.
 */
import { UUID } from 'bson';
import { makeQuery } from './mingo';
import { err, MongoCommandError, writeConflict } from './errors';
import { clone, Doc, isPlainObject, keyOf, valuesAt } from './values';

export interface IndexSpec {
  v?: number;
  key: Doc;
  name: string;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: Doc;
  expireAfterSeconds?: number;
  [k: string]: unknown;
}

interface KeyEntry {
  k: string;
  /** The keys of the entry's leading fields, shortest first (`a`, `a|b`, … for a compound index). */
  prefixes: string[];
  vals: unknown[];
}

/**
 * A secondary index: key string -> ids of the documents holding that key. A compound index also maps
 * each leading part of its key (`a`, `a|b`, …), so an equality on its first fields is a lookup too.
 */
export class Index {
  readonly fields: string[];
  readonly map = new Map<string, string | Set<string>>();
  /**
   * `prefixes[n - 1]`: the key of the first n fields -> ids (n < fields.length). Indexes of a collection
   * that lead with the same fields hold the same map there, maintained by one of them (`ownsPrefix`,
   * see Collection.addIndex): a dozen `{teamId, mode, …}` indexes keep one `teamId` map, not twelve.
   */
  readonly prefixes: Map<string, string | Set<string>>[];
  /** `ownsPrefix[n - 1]`: this index maintains `prefixes[n - 1]` (false: another index of the collection does). */
  readonly ownsPrefix: boolean[];
  readonly partial: ReturnType<typeof makeQuery> | null;
  /**
   * `runs[n]`: key of the first n fields (`''` for n = 0) -> field n's dates and numbers in order, for
   * range scans (docs/adr/0042). Built on a query's first use of a key, then kept up to date.
   */
  readonly runs: Map<string, OrderedRun>[];
  /** `unordered[n]`: field n held an array, several values or a number type a run does not order. */
  readonly unordered: boolean[];
  /** `dotted[n]`: field n is a path into embedded documents (or arrays of them). */
  private readonly dotted: boolean[];

  constructor(public readonly spec: IndexSpec) {
    this.fields = Object.keys(spec.key);
    this.prefixes = this.fields.slice(1).map(() => new Map());
    this.ownsPrefix = this.prefixes.map(() => true);
    this.partial = spec.partialFilterExpression ? makeQuery(spec.partialFilterExpression) : null;
    this.runs = this.fields.map(() => new Map());
    this.unordered = this.fields.map(() => false);
    this.dotted = this.fields.map((f) => f.includes('.'));
  }

  get name(): string {
    return this.spec.name;
  }
  get unique(): boolean {
    return !!this.spec.unique;
  }

  /** Every document has an entry (neither partial nor sparse): its prefix maps hold every document. */
  get complete(): boolean {
    return !this.partial && !this.spec.sparse;
  }

  entries(doc: Doc): KeyEntry[] {
    if (this.partial && !this.partial.test(doc)) return [];
    return this.singleEntry(doc) ?? this.allEntries(doc);
  }

  /**
   * The common case, without the general path's allocations (every insert, update and delete maintains
   * every index): each field holds exactly one value and none is an array, so the document has exactly
   * one entry. Null when some field is multikey (or several values sit under a dotted path).
   */
  private singleEntry(doc: Doc): KeyEntry[] | null {
    const n = this.fields.length;
    const vals: unknown[] = new Array(n);
    const prefixes: string[] = [];
    let k = '';
    let allMissing = true;
    for (let i = 0; i < n; i++) {
      const f = this.fields[i];
      let v: unknown;
      if (this.dotted[i]) {
        const found = valuesAt(doc, f);
        if (found.length !== 1) return null;
        v = found[0];
      } else v = doc[f];
      if (Array.isArray(v)) return null;
      if (!this.unordered[i] && !orderable(v)) this.markUnordered(i);
      if (v !== undefined) allMissing = false;
      if (i > 0) prefixes.push(k);
      k = i === 0 ? keyOf(v) : `${k}|${keyOf(v)}`;
      vals[i] = v === undefined ? null : v;
    }
    if (this.spec.sparse && allMissing) return [];
    return [{ k, prefixes, vals }];
  }

  private allEntries(doc: Doc): KeyEntry[] {
    const perField: { k: string; v: unknown }[][] = [];
    let allMissing = true;
    for (let i = 0; i < this.fields.length; i++) {
      const f = this.fields[i];
      const seen = new Map<string, unknown>();
      const found = valuesAt(doc, f);
      if (!this.unordered[i] && (found.length > 1 || !orderable(found[0]))) this.markUnordered(i);
      for (const v of found) {
        if (v !== undefined) allMissing = false;
        if (Array.isArray(v)) {
          if (v.length === 0) seen.set('N', undefined);
          for (const el of v) seen.set(keyOf(el), el);
        } else seen.set(keyOf(v), v === undefined ? null : v);
      }
      perField.push([...seen].map(([k, v]) => ({ k, v })));
    }
    if (this.spec.sparse && allMissing) return [];
    let combos: { ks: string[]; vs: unknown[] }[] = [{ ks: [], vs: [] }];
    for (const opts of perField) {
      const next: { ks: string[]; vs: unknown[] }[] = [];
      for (const c of combos) for (const o of opts) next.push({ ks: [...c.ks, o.k], vs: [...c.vs, o.v] });
      combos = next;
    }
    const prefixesOf = (ks: string[]) => {
      const out: string[] = [];
      for (let n = 1; n < ks.length; n++) out.push(n === 1 ? ks[0] : `${out[n - 2]}|${ks[n - 1]}`);
      return out;
    };
    return combos.map((c) => ({ k: c.ks.join('|'), prefixes: prefixesOf(c.ks), vals: c.vs }));
  }

  add(id: string, doc: Doc): void {
    this.addEntries(id, this.entries(doc));
  }

  remove(id: string, doc: Doc): void {
    this.removeEntries(id, this.entries(doc));
  }

  /**
   * `doc` replaces `old` under the same id. Most updates leave an index's fields as they were (a
   * status change touches one index of a dozen): then the entry is the same key and nothing moves.
   */
  replace(id: string, old: Doc, doc: Doc): void {
    const before = this.entries(old);
    const after = this.entries(doc);
    if (before.length === 1 && after.length === 1 && before[0].k === after[0].k) return;
    this.removeEntries(id, before);
    this.addEntries(id, after);
  }

  private addEntries(id: string, entries: KeyEntry[]): void {
    for (const e of entries) {
      addTo(this.map, e.k, id);
      for (let n = 0; n < e.prefixes.length; n++) if (this.ownsPrefix[n]) addTo(this.prefixes[n], e.prefixes[n], id);
      this.eachRun(e, (run, v) => run.insert(v, id));
    }
  }

  private removeEntries(id: string, entries: KeyEntry[]): void {
    for (const e of entries) {
      removeFrom(this.map, e.k, id);
      for (let n = 0; n < e.prefixes.length; n++) if (this.ownsPrefix[n]) removeFrom(this.prefixes[n], e.prefixes[n], id);
      this.eachRun(e, (run, v) => run.remove(v, id));
    }
  }

  /** The built runs an entry belongs to, with its value there. */
  private eachRun(e: KeyEntry, fn: (run: OrderedRun, v: unknown) => void): void {
    for (let n = 0; n < this.fields.length; n++) {
      const runs = this.runs[n];
      if (runs.size === 0) continue;
      const run = runs.get(n === 0 ? '' : e.prefixes[n - 1]);
      if (run) fn(run, e.vals[n]);
    }
  }

  private markUnordered(n: number): void {
    this.unordered[n] = true;
    this.runs[n].clear();
  }

  /**
   * Ids whose field n lies in `range`, among the documents holding key `prefix` of the first n fields;
   * null when field n cannot be scanned in order. `docs` builds the run on its first use.
   */
  inRange(n: number, prefix: string, range: Range, docs: Map<string, Doc>): string[] | null {
    return this.run(n, prefix, docs)?.between(range) ?? null;
  }

  /** The run of field n for key `prefix` of the first n fields (built now if it is not yet); null when field n is unordered. */
  run(n: number, prefix: string, docs: Map<string, Doc>): OrderedRun | null {
    if (this.unordered[n]) return null;
    let run = this.runs[n].get(prefix);
    if (!run) {
      const found: { v: unknown; id: string }[] = [];
      const ids = n === 0 ? docs.keys() : this.owners(prefix, n);
      for (const id of ids) {
        const d = docs.get(id);
        if (!d) continue;
        for (const e of this.entries(d)) if (n === 0 || e.prefixes[n - 1] === prefix) found.push({ v: e.vals[n], id });
      }
      // entries() may have found this field unorderable while building.
      if (this.unordered[n]) return null;
      run = OrderedRun.of(found);
      this.runs[n].set(prefix, run);
    }
    return run;
  }

  /** Ids holding key `k` of the whole index, or of its first `fieldCount` fields. */
  owners(k: string, fieldCount = this.fields.length): string[] {
    const s = (fieldCount >= this.fields.length ? this.map : this.prefixes[fieldCount - 1]).get(k);
    if (s === undefined) return [];
    return typeof s === 'string' ? [s] : [...s];
  }

  /** How many documents hold key `k` of the first `fieldCount` fields. */
  ownerCount(k: string, fieldCount: number): number {
    const s = (fieldCount >= this.fields.length ? this.map : this.prefixes[fieldCount - 1]).get(k);
    return s === undefined ? 0 : typeof s === 'string' ? 1 : s.size;
  }
}

function addTo(m: Map<string, string | Set<string>>, k: string, id: string): void {
  const cur = m.get(k);
  if (cur === undefined) m.set(k, id);
  else if (typeof cur === 'string') {
    if (cur !== id) m.set(k, new Set([cur, id]));
  } else cur.add(id);
}

function removeFrom(m: Map<string, string | Set<string>>, k: string, id: string): void {
  const cur = m.get(k);
  if (cur === undefined) return;
  if (typeof cur === 'string') {
    if (cur === id) m.delete(k);
  } else {
    cur.delete(id);
    if (cur.size === 1) m.set(k, cur.values().next().value as string);
    else if (cur.size === 0) m.delete(k);
  }
}

/** Bounds on one field, all dates or all numbers (MongoDB compares within one type bracket). */
export interface Range {
  kind: 'date' | 'number';
  lo?: { v: number; inclusive: boolean };
  hi?: { v: number; inclusive: boolean };
}

/** A value a run orders; missing, null and other types are left out (no date or number range matches them). */
function orderable(v: unknown): boolean {
  if (v === undefined || v === null || v instanceof Date) return true;
  if (typeof v === 'number') return !Number.isNaN(v);
  if (typeof v !== 'object') return true;
  // Arrays (multikey) and number wrappers (Long, Decimal128, …) are compared in ways a run does not model.
  return !Array.isArray(v) && !(v as { _bsontype?: string })._bsontype?.match(/^(Long|Int32|Double|Decimal128)$/);
}

/** One field's dates and numbers in order, each with its document id (ties by id). */
export class OrderedRun {
  private readonly dates = { v: [] as number[], ids: [] as string[] };
  private readonly numbers = { v: [] as number[], ids: [] as string[] };

  private side(v: unknown): { side: { v: number[]; ids: string[] }; x: number } | null {
    if (v instanceof Date) return { side: this.dates, x: v.getTime() };
    if (typeof v === 'number' && !Number.isNaN(v)) return { side: this.numbers, x: v };
    return null;
  }

  /** A run of many values at once: sorted once instead of inserted one by one. */
  static of(values: { v: unknown; id: string }[]): OrderedRun {
    const run = new OrderedRun();
    const pairs: { side: { v: number[]; ids: string[] }; x: number; id: string }[] = [];
    for (const { v, id } of values) {
      const at = run.side(v);
      if (at) pairs.push({ ...at, id });
    }
    pairs.sort((a, b) => a.x - b.x || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const p of pairs) {
      p.side.v.push(p.x);
      p.side.ids.push(p.id);
    }
    return run;
  }

  insert(v: unknown, id: string): void {
    const at = this.side(v);
    if (!at) return;
    const i = position(at.side, at.x, id);
    at.side.v.splice(i, 0, at.x);
    at.side.ids.splice(i, 0, id);
  }

  remove(v: unknown, id: string): void {
    const at = this.side(v);
    if (!at) return;
    const i = position(at.side, at.x, id);
    if (at.side.v[i] === at.x && at.side.ids[i] === id) {
      at.side.v.splice(i, 1);
      at.side.ids.splice(i, 1);
    }
  }

  /** How many dates and how many numbers the run holds. */
  get sizes(): { date: number; number: number } {
    return { date: this.dates.v.length, number: this.numbers.v.length };
  }

  /** Ids with their values in order (descending when `desc`), within `r` when given. */
  *walk(kind: Range['kind'], desc: boolean, r: Range | null): Generator<{ v: number; id: string }> {
    const side = kind === 'date' ? this.dates : this.numbers;
    const from = r?.lo ? bound(side.v, r.lo.v, !r.lo.inclusive) : 0;
    const to = r?.hi ? bound(side.v, r.hi.v, r.hi.inclusive) : side.v.length;
    if (desc) for (let i = to - 1; i >= from; i--) yield { v: side.v[i], id: side.ids[i] };
    else for (let i = from; i < to; i++) yield { v: side.v[i], id: side.ids[i] };
  }

  between(r: Range): string[] {
    const side = r.kind === 'date' ? this.dates : this.numbers;
    const from = r.lo ? bound(side.v, r.lo.v, !r.lo.inclusive) : 0;
    const to = r.hi ? bound(side.v, r.hi.v, r.hi.inclusive) : side.v.length;
    return from < to ? side.ids.slice(from, to) : [];
  }
}

/** Where (x, id) goes in a side ordered by value, then id. */
function position(side: { v: number[]; ids: string[] }, x: number, id: string): number {
  let lo = 0;
  let hi = side.v.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (side.v[mid] < x || (side.v[mid] === x && side.ids[mid] < id)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index whose value is > x (after = true) or >= x (after = false). */
function bound(vs: number[], x: number, after: boolean): number {
  let lo = 0;
  let hi = vs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (vs[mid] < x || (after && vs[mid] === x)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class Collection {
  readonly docs = new Map<string, Doc>();
  readonly indexes = new Map<string, Index>();
  readonly uuid = new UUID();
  dropped = false;

  constructor(
    public readonly db: string,
    public readonly name: string,
    public options: Doc = {},
  ) {}

  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  /** Insert or replace without any checks (index maintenance only). */
  putRaw(doc: Doc): void {
    const id = keyOf(doc._id);
    const old = this.docs.get(id);
    this.docs.set(id, doc);
    for (const ix of this.indexes.values()) {
      if (old) ix.replace(id, old, doc);
      else ix.add(id, doc);
    }
  }

  removeRaw(id: string): Doc | undefined {
    const old = this.docs.get(id);
    if (!old) return undefined;
    for (const ix of this.indexes.values()) ix.remove(id, old);
    this.docs.delete(id);
    return old;
  }

  /**
   * Registers `ix` (replacing an index of the same name), built over the documents already here after
   * it took the prefix maps it shares: a complete index leading with the same first n fields as another
   * complete one holds that one's map for those n fields instead of its own, and leaves its upkeep to it.
   */
  addIndex(ix: Index): void {
    this.dropIndex(ix.name);
    if (ix.complete) {
      for (let n = 1; n < ix.fields.length; n++) {
        const lead = ix.fields.slice(0, n).join('\0');
        for (const other of this.indexes.values()) {
          if (!other.complete || other.fields.length <= n || other.fields.slice(0, n).join('\0') !== lead) continue;
          ix.prefixes[n - 1] = other.prefixes[n - 1];
          ix.ownsPrefix[n - 1] = false;
          break;
        }
      }
    }
    for (const [id, doc] of this.docs) ix.add(id, doc);
    this.indexes.set(ix.name, ix);
  }

  /** Drops index `name`; the maps it kept for others go on being kept, by one of them. */
  dropIndex(name: string): void {
    const ix = this.indexes.get(name);
    if (!ix) return;
    this.indexes.delete(name);
    for (let n = 0; n < ix.prefixes.length; n++) {
      if (!ix.ownsPrefix[n]) continue;
      for (const other of this.indexes.values()) {
        if (other.prefixes[n] !== ix.prefixes[n]) continue;
        other.ownsPrefix[n] = true;
        break;
      }
    }
  }

  indexSpecs(): IndexSpec[] {
    return [{ v: 2, key: { _id: 1 }, name: '_id_' }, ...[...this.indexes.values()].map((i) => i.spec)];
  }
}

export class Database {
  readonly collections = new Map<string, Collection>();
  constructor(public readonly name: string) {}
}

/** Thrown by a non-transactional write that touches a document or key held by a live transaction. */
export class Blocked {
  constructor(public readonly txn: Txn) {}
}

export type TxnState = 'active' | 'committed' | 'aborted';

export class Txn {
  readonly writes = new Map<Collection, Map<string, Doc | null>>();
  readonly locks: string[] = [];
  readonly reservations: string[] = [];
  state: TxnState = 'active';
  /** Engine.modCounter when the transaction started (its first operation). */
  startSeq = 0;
  abortReason = '';
  readonly done: Promise<void>;
  private resolveDone!: () => void;
  timer?: NodeJS.Timeout;

  constructor(
    public readonly sessionKey: string,
    public readonly txnNumber: number,
  ) {
    this.done = new Promise((r) => (this.resolveDone = r));
  }

  finish(state: TxnState): void {
    this.state = state;
    if (this.timer) clearTimeout(this.timer);
    this.resolveDone();
  }
}

export interface Stats {
  docsExamined: number;
  keysExamined: number;
  collectionScans: number;
  indexScans: number;
  commands: number;
  /** $group stages run by the compiled path (fast-group.ts) instead of the general engine. */
  compiledGroups: number;
}

export type JournalOp =
  | { o: 'i' | 'r'; ns: string; d: Doc }
  | { o: 'd'; ns: string; id: unknown }
  | { o: 'cc'; ns: string; opts: Doc }
  | { o: 'dc'; ns: string }
  | { o: 'dd'; db: string }
  | { o: 'ci'; ns: string; spec: IndexSpec }
  | { o: 'di'; ns: string; name: string }
  | { o: 'tx'; ops: JournalOp[] };

export function dupKeyError(coll: Collection, index: string, keyPattern: Doc, keyValue: Doc): MongoCommandError {
  const shown = Object.entries(keyValue)
    .map(([k, v]) => `${k}: ${showValue(v)}`)
    .join(', ');
  return err(11000, `E11000 duplicate key error collection: ${coll.ns} index: ${index} dup key: { ${shown} }`, {
    keyPattern,
    keyValue,
  });
}

function showValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null || v === undefined) return 'null';
  if (v instanceof Date) return `new Date(${v.getTime()})`;
  const t = (v as { _bsontype?: string })._bsontype;
  if (t === 'ObjectId') return `ObjectId('${String(v)}')`;
  if (isPlainObject(v) || Array.isArray(v)) return JSON.stringify(v);
  return String(v);
}

export interface Plan {
  ids: string[] | null;
  index: string | null;
  /** The filter fields the index lookup answered exactly (every candidate equals them). */
  covers?: readonly string[];
  /** The field whose range the lookup answered exactly (every candidate is within it), if any. */
  rangeField?: string;
  /** A counting plan's answer: how many documents hold its one key (Engine.indexCount). */
  count?: number;
}

export class Engine {
  readonly dbs = new Map<string, Database>();
  readonly locks = new Map<string, Txn>();
  /** Last modification counter per document (ns\0id), kept only while transactions are live. */
  private readonly modSeq = new Map<string, number>();
  private modCounter = 0;
  private activeTxns = 0;
  readonly reservations = new Map<string, Txn>();
  readonly stats: Stats = { docsExamined: 0, keysExamined: 0, collectionScans: 0, indexScans: 0, commands: 0, compiledGroups: 0 };
  /** Called with every committed change (not during replay). */
  onWrite: ((op: JournalOp) => void) | null = (op) => {
    this.writeSeq++;
    this.onWriteSink?.(op);
  };
  /** The journal registers here. */
  onWriteSink: ((op: JournalOp) => void) | null = null;
  /** Incremented for every committed change. */
  writeSeq = 0;

  private log(op: JournalOp): void {
    this.onWrite?.(op);
  }

  // ---- namespaces --------------------------------------------------------------------------------

  getColl(db: string, name: string): Collection | undefined {
    return this.dbs.get(db)?.collections.get(name);
  }

  ensureColl(db: string, name: string, options: Doc = {}): Collection {
    let d = this.dbs.get(db);
    if (!d) {
      d = new Database(db);
      this.dbs.set(db, d);
    }
    let c = d.collections.get(name);
    if (!c) {
      validateCollName(db, name);
      c = new Collection(db, name, options);
      d.collections.set(name, c);
      this.log({ o: 'cc', ns: c.ns, opts: options });
    }
    return c;
  }

  dropColl(db: string, name: string): Collection | undefined {
    const d = this.dbs.get(db);
    const c = d?.collections.get(name);
    if (!d || !c) return undefined;
    for (const [id] of c.docs) {
      const owner = this.locks.get(c.ns + '\0' + id);
      if (owner) this.abortTxn(owner, 'collection dropped');
    }
    d.collections.delete(name);
    c.dropped = true;
    if (d.collections.size === 0) this.dbs.delete(db);
    this.log({ o: 'dc', ns: c.ns });
    return c;
  }

  dropDb(db: string): void {
    const d = this.dbs.get(db);
    if (!d) return;
    for (const name of [...d.collections.keys()]) this.dropColl(db, name);
    this.dbs.delete(db);
    this.log({ o: 'dd', db });
  }

  // ---- indexes -----------------------------------------------------------------------------------

  createIndex(coll: Collection, spec: IndexSpec): void {
    const ix = new Index(spec);
    if (ix.unique) {
      const seen = new Map<string, string>();
      for (const [id, doc] of coll.docs) {
        for (const e of ix.entries(doc)) {
          const other = seen.get(e.k);
          if (other !== undefined && other !== id) throw dupKeyError(coll, spec.name, spec.key, keyValueOf(ix, e.vals));
          seen.set(e.k, id);
        }
      }
    }
    coll.addIndex(ix);
    this.log({ o: 'ci', ns: coll.ns, spec });
  }

  dropIndex(coll: Collection, name: string): void {
    coll.dropIndex(name);
    this.log({ o: 'di', ns: coll.ns, name });
  }

  // ---- reads -------------------------------------------------------------------------------------

  /** Equality predicates usable for an index lookup: field -> candidate values. */
  private eqPredicates(filter: Doc, out = new Map<string, unknown[]>()): Map<string, unknown[]> {
    for (const k of Object.keys(filter)) {
      const v = filter[k];
      if (k === '$and' && Array.isArray(v)) {
        for (const sub of v) if (isPlainObject(sub)) this.eqPredicates(sub, out);
        continue;
      }
      if (k.startsWith('$') || out.has(k)) continue;
      if (isPlainObject(v) && Object.keys(v).some((x) => x.startsWith('$'))) {
        if ('$eq' in v && eqUsable(v.$eq)) out.set(k, [v.$eq]);
        else if (Array.isArray(v.$in) && v.$in.every(eqUsable)) out.set(k, v.$in);
      } else if (eqUsable(v)) out.set(k, [v]);
    }
    return out;
  }

  /** Range predicates usable for an ordered scan: field -> its bounds (only $gt/$gte/$lt/$lte of one bracket). */
  private rangePredicates(filter: Doc, out = new Map<string, Range>()): Map<string, Range> {
    for (const k of Object.keys(filter)) {
      const v = filter[k];
      if (k === '$and' && Array.isArray(v)) {
        for (const sub of v) if (isPlainObject(sub)) this.rangePredicates(sub, out);
        continue;
      }
      if (k.startsWith('$') || out.has(k) || !isPlainObject(v)) continue;
      const ops = Object.keys(v);
      if (!ops.length || !ops.every((op) => op === '$gt' || op === '$gte' || op === '$lt' || op === '$lte')) continue;
      const range = rangeOf(v);
      if (range) out.set(k, range);
    }
    return out;
  }

  /** Index candidates for `filter`: the index fixing the most leading fields by equality, then a range on the next (null ids = scan). */
  plan(coll: Collection, filter: Doc | undefined, counting = false): Plan {
    if (!filter || coll.docs.size < 8) return { ids: null, index: null };
    const eq = this.eqPredicates(filter);
    const idVals = eq.get('_id');
    if (idVals) return counting ? { ids: null, index: null } : { ids: unique(idVals.map(keyOf)), index: '_id_', covers: ['_id'] };
    const ranges = this.rangePredicates(filter);
    if (eq.size === 0 && ranges.size === 0) return { ids: null, index: null };
    // The index answering the most leading fields by equality, then a range on the next one; a whole
    // unique index beats everything.
    let best: { ix: Index; score: number; used: number; range: Range | null } | null = null;
    for (const ix of coll.indexes.values()) {
      if (ix.partial) continue;
      const used = eqPrefixLength(ix, eq, false);
      const full = used === ix.fields.length;
      const range = !full && !ix.unordered[used] ? (ranges.get(ix.fields[used]) ?? null) : null;
      if (used === 0 && !range) continue;
      // A range on the next field narrows further than the same prefix alone, even a whole index's.
      const score = full && ix.unique ? 1000 : used * 2 + (range ? 1 : 0) + (full ? 0.5 : 0);
      if (!best || score > best.score) best = { ix, score, used, range };
    }
    if (!best) return { ids: null, index: null };
    const { ix, used, range } = best;
    const fields = ix.fields.slice(0, used);
    const combos = keysOf(fields, eq);
    if (!combos) return { ids: null, index: null };
    const extra = range ? { rangeField: ix.fields[used] } : {};
    if (counting) {
      // One key and no range: how many documents hold it is the size of its entry (docs/adr/0077).
      return combos.length === 1 && !range ? { ids: null, index: ix.name, covers: fields, count: ix.ownerCount(combos[0], used) } : { ids: null, index: null };
    }
    if (combos.length === 1) {
      // One key: its ids are distinct already (a run holds a document once: its field is not multikey).
      const found = range ? ix.inRange(used, combos[0], range, coll.docs) : ix.owners(combos[0], used);
      return found === null ? { ids: null, index: null } : { ids: found, index: ix.name, covers: fields, ...extra };
    }
    const ids = new Set<string>();
    for (const k of combos) {
      const found = range ? ix.inRange(used, k, range, coll.docs) : ix.owners(k, used);
      if (found === null) return { ids: null, index: null };
      for (const id of found) ids.add(id);
    }
    return { ids: [...ids], index: ix.name, covers: fields, ...extra };
  }

  /**
   * How many documents the index lookup for `filter` finds, without listing them (docs/adr/0077):
   * when the plan is one key of an index's leading fields and no range, and `txn` wrote nothing
   * here (its writes are not in the index). `covers`: the fields the lookup answered exactly, for the
   * caller to check the count is the answer (every field of the filter is one of them); null when
   * the documents must be listed.
   */
  indexCount(coll: Collection | undefined, filter: Doc, txn?: Txn | null): { count: number; covers: readonly string[] } | null {
    if (!coll || txn?.writes.get(coll)?.size) return null;
    const plan = this.plan(coll, filter, true);
    if (plan.count === undefined || !plan.covers) return null;
    this.stats.indexScans++;
    return { count: plan.count, covers: plan.covers };
  }

  /** Documents that may match `filter` (index candidates or a full scan), as seen by `txn`. */
  candidates(coll: Collection | undefined, filter: Doc | undefined, txn?: Txn | null): { docs: Iterable<Doc>; plan: Plan } {
    if (!coll) return { docs: [], plan: { ids: null, index: null } };
    const plan = this.plan(coll, filter);
    const w = txn?.writes.get(coll);
    if (plan.ids === null) {
      this.stats.collectionScans++;
      return { docs: this.scan(coll, w), plan };
    }
    this.stats.indexScans++;
    this.stats.keysExamined += plan.ids.length;
    const out: Doc[] = [];
    for (const id of plan.ids) {
      const d = w?.has(id) ? w.get(id) : coll.docs.get(id);
      if (d) out.push(d);
    }
    if (w) {
      const listed = new Set(plan.ids);
      for (const [id, d] of w) if (d && !listed.has(id)) out.push(d);
    }
    return { docs: out, plan };
  }

  /**
   * The documents that may match `filter` in the order of `sort`'s first key, each with that key's
   * value, walked from an index run (docs/adr/0042): an index whose leading fields `filter` fixes to
   * one value each and whose next field is that key. Null when no index gives that order for every
   * document that can match (then the caller sorts), or inside a transaction that wrote here.
   */
  orderedWalk(coll: Collection | undefined, filter: Doc, sort: Doc, txn?: Txn | null): { docs: Iterable<{ v: number; doc: Doc }>; covers: readonly string[] } | null {
    if (!coll || coll.docs.size < 8 || txn?.writes.get(coll)?.size) return null;
    const field = Object.keys(sort)[0];
    const dir = sort[field];
    if (field === undefined || (dir !== 1 && dir !== -1)) return null;
    const eq = this.eqPredicates(filter);
    if (eq.has('_id')) return null;
    const range = this.rangePredicates(filter).get(field) ?? null;
    let best: { ix: Index; used: number } | null = null;
    for (const ix of coll.indexes.values()) {
      if (ix.partial) continue;
      const used = eqPrefixLength(ix, eq, true);
      if (used < ix.fields.length && ix.fields[used] === field && !ix.unordered[used] && (!best || used > best.used)) best = { ix, used };
    }
    if (!best || (best.used === 0 && !range)) return null;
    const { ix, used } = best;
    const fields = ix.fields.slice(0, used);
    const prefix = fields.map((f) => keyOf(eq.get(f)![0])).join('|');
    const run = ix.run(used, prefix, coll.docs);
    if (!run) return null;
    let kind: Range['kind'];
    if (range) kind = range.kind;
    else {
      // Without a range every candidate must be in the run: a missing, null or other value sorts elsewhere.
      const sizes = run.sizes;
      const all = used === 0 ? coll.docs.size : ix.ownerCount(prefix, used);
      if (sizes.date === all) kind = 'date';
      else if (sizes.number === all) kind = 'number';
      else return null;
    }
    this.stats.indexScans++;
    const docs = coll.docs;
    function* walk(): Generator<{ v: number; doc: Doc }> {
      for (const { v, id } of run!.walk(kind, dir === -1, range)) {
        const doc = docs.get(id);
        if (doc) yield { v, doc };
      }
    }
    return { docs: walk(), covers: fields };
  }

  private *scan(coll: Collection, w: Map<string, Doc | null> | undefined): Iterable<Doc> {
    if (!w) {
      yield* coll.docs.values();
      return;
    }
    for (const [id, d] of coll.docs) {
      if (w.has(id)) {
        const x = w.get(id);
        if (x) yield x;
      } else yield d;
    }
    for (const [id, d] of w) if (d && !coll.docs.has(id)) yield d;
  }

  allDocs(coll: Collection | undefined, txn?: Txn | null): Iterable<Doc> {
    if (!coll) return [];
    return this.scan(coll, txn?.writes.get(coll));
  }

  count(coll: Collection | undefined, txn?: Txn | null): number {
    if (!coll) return 0;
    const w = txn?.writes.get(coll);
    if (!w) return coll.docs.size;
    let n = coll.docs.size;
    for (const [id, d] of w) {
      const inBase = coll.docs.has(id);
      if (d && !inBase) n++;
      else if (!d && inBase) n--;
    }
    return n;
  }

  private get(coll: Collection, id: string, txn?: Txn | null): Doc | undefined {
    const w = txn?.writes.get(coll);
    if (w?.has(id)) return w.get(id) ?? undefined;
    return coll.docs.get(id);
  }

  // ---- writes ------------------------------------------------------------------------------------

  /** Throws Blocked / WriteConflict when a document is held by another transaction. */
  checkWritable(coll: Collection, ids: Iterable<string>, txn?: Txn | null): void {
    for (const id of ids) {
      const k = coll.ns + '\0' + id;
      const owner = this.locks.get(k);
      if (owner && owner !== txn) {
        if (txn) throw this.conflict(txn);
        throw new Blocked(owner);
      }
      // Snapshot semantics for writes: a document changed since the transaction began conflicts.
      if (txn && !owner && (this.modSeq.get(k) ?? 0) > txn.startSeq) throw this.conflict(txn);
    }
  }

  /** Throws Blocked / WriteConflict when a unique key of `doc` is reserved by another transaction. */
  checkKeys(coll: Collection, doc: Doc, txn?: Txn | null): void {
    for (const ix of coll.indexes.values()) {
      if (!ix.unique) continue;
      for (const e of ix.entries(doc)) {
        const owner = this.reservations.get(coll.ns + '\0' + ix.name + '\0' + e.k);
        if (owner && owner !== txn) {
          if (txn) throw this.conflict(txn);
          throw new Blocked(owner);
        }
      }
    }
  }

  private conflict(txn: Txn): MongoCommandError {
    this.abortTxn(txn, 'write conflict');
    return writeConflict();
  }

  private findDupe(coll: Collection, doc: Doc, id: string, txn?: Txn | null): MongoCommandError | null {
    const w = txn?.writes.get(coll);
    for (const ix of coll.indexes.values()) {
      if (!ix.unique) continue;
      for (const e of ix.entries(doc)) {
        for (const other of ix.owners(e.k)) {
          if (other === id || w?.has(other)) continue;
          return dupKeyError(coll, ix.name, ix.spec.key, keyValueOf(ix, e.vals));
        }
        if (w) {
          for (const [oid, od] of w) {
            if (!od || oid === id) continue;
            if (ix.entries(od).some((x) => x.k === e.k)) return dupKeyError(coll, ix.name, ix.spec.key, keyValueOf(ix, e.vals));
          }
        }
      }
    }
    return null;
  }

  private hold(coll: Collection, id: string, doc: Doc | null, txn: Txn): void {
    let w = txn.writes.get(coll);
    if (!w) {
      w = new Map();
      txn.writes.set(coll, w);
    }
    w.set(id, doc);
    const lk = coll.ns + '\0' + id;
    if (!this.locks.has(lk)) {
      this.locks.set(lk, txn);
      txn.locks.push(lk);
    }
    if (doc) {
      for (const ix of coll.indexes.values()) {
        if (!ix.unique) continue;
        for (const e of ix.entries(doc)) {
          const rk = coll.ns + '\0' + ix.name + '\0' + e.k;
          if (!this.reservations.has(rk)) {
            this.reservations.set(rk, txn);
            txn.reservations.push(rk);
          }
        }
      }
    }
  }

  insert(coll: Collection, doc: Doc, txn?: Txn | null): void {
    const id = keyOf(doc._id);
    this.checkWritable(coll, [id], txn);
    this.checkKeys(coll, doc, txn);
    if (this.get(coll, id, txn)) throw dupKeyError(coll, '_id_', { _id: 1 }, { _id: doc._id });
    const dup = this.findDupe(coll, doc, id, txn);
    if (dup) throw dup;
    if (txn) return this.hold(coll, id, doc, txn);
    coll.putRaw(doc);
    this.touched(coll, id);
    this.log({ o: 'i', ns: coll.ns, d: doc });
  }

  /** Replace the document with id `id` by `doc` (same _id). Callers ran checkWritable/checkKeys. */
  replace(coll: Collection, id: string, doc: Doc, txn?: Txn | null): void {
    const dup = this.findDupe(coll, doc, id, txn);
    if (dup) throw dup;
    if (txn) return this.hold(coll, id, doc, txn);
    coll.putRaw(doc);
    this.touched(coll, id);
    this.log({ o: 'r', ns: coll.ns, d: doc });
  }

  remove(coll: Collection, id: string, txn?: Txn | null): void {
    if (txn) return this.hold(coll, id, null, txn);
    const old = coll.removeRaw(id);
    this.touched(coll, id);
    if (old) this.log({ o: 'd', ns: coll.ns, id: old._id });
  }

  // ---- transactions ------------------------------------------------------------------------------

  beginTxn(txn: Txn): void {
    txn.startSeq = this.modCounter;
    this.activeTxns++;
  }

  private touched(coll: Collection, id: string): void {
    if (this.activeTxns > 0) this.modSeq.set(coll.ns + '\0' + id, ++this.modCounter);
  }

  commitTxn(txn: Txn): void {
    const ops: JournalOp[] = [];
    for (const [c, w] of txn.writes) {
      const coll = c.dropped ? this.ensureColl(c.db, c.name) : c;
      // Unique keys were checked and reserved as the transaction wrote, so each write lands on its own:
      // an update keeps its place and the index entries it did not change (putRaw).
      for (const [id, d] of w) {
        this.touched(coll, id);
        if (d) {
          coll.putRaw(d);
          ops.push({ o: 'r', ns: coll.ns, d });
        } else {
          const old = coll.removeRaw(id);
          if (old) ops.push({ o: 'd', ns: coll.ns, id: old._id });
        }
      }
    }
    this.release(txn);
    txn.finish('committed');
    if (ops.length) this.log({ o: 'tx', ops });
  }

  abortTxn(txn: Txn, reason = 'aborted'): void {
    if (txn.state !== 'active') return;
    txn.abortReason = reason;
    this.release(txn);
    txn.finish('aborted');
  }

  private release(txn: Txn): void {
    if (txn.state === 'active' && --this.activeTxns === 0) this.modSeq.clear();
    for (const k of txn.locks) if (this.locks.get(k) === txn) this.locks.delete(k);
    for (const k of txn.reservations) if (this.reservations.get(k) === txn) this.reservations.delete(k);
  }

  // ---- journal replay ----------------------------------------------------------------------------

  apply(op: JournalOp): void {
    const save = this.onWrite;
    this.onWrite = null;
    try {
      this.applyOp(op);
    } finally {
      this.onWrite = save;
    }
  }

  private applyOp(op: JournalOp): void {
    switch (op.o) {
      case 'i':
      case 'r': {
        const [db, name] = splitNs(op.ns);
        this.ensureColl(db, name).putRaw(op.d);
        break;
      }
      case 'd': {
        const [db, name] = splitNs(op.ns);
        this.getColl(db, name)?.removeRaw(keyOf(op.id));
        break;
      }
      case 'cc': {
        const [db, name] = splitNs(op.ns);
        this.ensureColl(db, name, op.opts);
        break;
      }
      case 'dc': {
        const [db, name] = splitNs(op.ns);
        this.dropColl(db, name);
        break;
      }
      case 'dd':
        this.dropDb(op.db);
        break;
      case 'ci': {
        const [db, name] = splitNs(op.ns);
        const c = this.ensureColl(db, name);
        c.addIndex(new Index(op.spec));
        break;
      }
      case 'di': {
        const [db, name] = splitNs(op.ns);
        this.getColl(db, name)?.dropIndex(op.name);
        break;
      }
      case 'tx':
        for (const x of op.ops) this.applyOp(x);
        break;
    }
  }
}

export function splitNs(ns: string): [string, string] {
  const i = ns.indexOf('.');
  return [ns.slice(0, i), ns.slice(i + 1)];
}

export function keyValueOf(ix: Index, vals: unknown[]): Doc {
  const kv: Doc = {};
  ix.fields.forEach((f, i) => (kv[f] = vals[i] === undefined ? null : clone(vals[i])));
  return kv;
}

/** The bounds of `{$gt…: x}` when every bound is a date, or every bound a number. */
function rangeOf(ops: Doc): Range | null {
  const r: Range = { kind: 'date' };
  let kinds = 0;
  for (const [op, x] of Object.entries(ops)) {
    let v: number;
    if (x instanceof Date) {
      kinds |= 1;
      v = x.getTime();
    } else if (typeof x === 'number' && !Number.isNaN(x)) {
      kinds |= 2;
      v = x;
    } else return null;
    if (Number.isNaN(v)) return null;
    const inclusive = op === '$gte' || op === '$lte';
    if (op === '$gt' || op === '$gte') {
      if (!r.lo || v > r.lo.v || (v === r.lo.v && !inclusive)) r.lo = { v, inclusive };
    } else if (!r.hi || v < r.hi.v || (v === r.hi.v && !inclusive)) r.hi = { v, inclusive };
  }
  if (kinds === 3) return null;
  r.kind = kinds === 1 ? 'date' : 'number';
  return r;
}

/** The index keys of `fields`' equality values (every combination), or null past 5,000 of them. */
function keysOf(fields: string[], eq: Map<string, unknown[]>): string[] | null {
  let combos: string[] = [''];
  for (const f of fields) {
    const ks = unique(eq.get(f)!.map(keyOf));
    const next: string[] = [];
    for (const c of combos) for (const k of ks) next.push(c ? c + '|' + k : k);
    combos = next;
    if (combos.length > 5000) return null;
  }
  return combos;
}

function eqUsable(v: unknown): boolean {
  if (Array.isArray(v) || v instanceof RegExp) return false;
  if (v && typeof v === 'object' && (v as { _bsontype?: string })._bsontype === 'BSONRegExp') return false;
  if (isPlainObject(v) && Object.keys(v).some((k) => k.startsWith('$'))) return false;
  return true;
}

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

export function validateCollName(db: string, name: string): void {
  if (!db || /[/\\. "$]/.test(db)) throw err(73, `Invalid database name: '${db}'`);
  if (!name || name.includes('$') || name.startsWith('.') || name.includes('\0'))
    throw err(73, `Invalid collection name: ${name}`);
}

/**
 * How many of `ix`'s leading fields `eq` fixes by equality (each to exactly one value when `single`,
 * as an ordered walk needs). A sparse index holds no null, so it cannot answer an equality to null.
 */
function eqPrefixLength(ix: Index, eq: Map<string, unknown[]>, single: boolean): number {
  let used = 0;
  for (; used < ix.fields.length; used++) {
    const vals = eq.get(ix.fields[used]);
    if (!vals || (single && vals.length !== 1) || (ix.spec.sparse && vals.some((x) => x === null))) break;
  }
  return used;
}
