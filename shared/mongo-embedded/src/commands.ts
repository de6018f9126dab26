/**
 * The command layer: MongoDB command semantics and reply shapes on top of the storage engine.
 * Query, update, projection and aggregation semantics come from mingo.
 */
import * as os from 'node:os';
import { calculateObjectSize, Long, ObjectId, UUID } from 'bson';
import { update as mingoUpdate } from 'mingo';
import { checkInsertDepth, checkUpdateDepth, DEFAULT_MAX_BSON_DEPTH, maxDepthForUserStorage } from './depth';
import { makeAggregator, makeQuery } from './mingo';
import { simpleMatcher, simpleProjection } from './simple-query';
import { compileGroup, Unsupported } from './fast-group';
import { err, MongoCommandError } from './errors';
import { Blocked, Collection, Engine, IndexSpec, Txn } from './storage';
import { clone, Doc, isPlainObject, keyOf, setPath, sortBySpec, valuesAt } from './values';

export const MAX_BSON = 16 * 1024 * 1024;
const VERSION = '8.0.0';

export interface CoreOptions {
  host: string;
  port: () => number;
  setName: string;
  logger?: (msg: string) => void;
  /** How long a transaction may stay open before the server aborts it (MongoDB: 60 s). */
  transactionLifetimeMs?: number;
  /** MongoDB's maxBSONDepth (default 200); stored documents may nest 20 levels less (see depth.ts). */
  maxBSONDepth?: number;
}

interface Cursor {
  id: number;
  ns: string;
  docs: Doc[];
  pos: number;
  lastUsed: number;
}

interface Session {
  key: string;
  txn: Txn | null;
  lastTxnNumber: number;
  lastUsed: number;
  /** The connection that sent the session's latest command (see connectionClosed). */
  lastConnection: number;
}

export interface CommandContext {
  db: string;
  txn: Txn | null;
  session: Session | null;
  connectionId: number;
  remote: string;
}

type Handler = (cmd: Doc, ctx: CommandContext) => Doc | Promise<Doc>;

const SAFE_STAGES = new Set(['$match', '$sort', '$skip', '$limit', '$count', '$group', '$project', '$sortByCount', '$lookup', '$unwind', '$facet']);
const SUPPORTED_STAGES = new Set([
  '$addFields', '$bucket', '$bucketAuto', '$count', '$densify', '$documents', '$facet', '$fill', '$graphLookup', '$group', '$limit',
  '$lookup', '$match', '$project', '$redact', '$replaceRoot', '$replaceWith', '$sample', '$set', '$setWindowFields', '$skip',
  '$sort', '$sortByCount', '$unionWith', '$unset', '$unwind',
]);
const KNOWN_UNSUPPORTED_STAGES = new Set(['$out', '$merge', '$changeStream', '$collStats', '$indexStats', '$currentOp', '$search', '$searchMeta', '$vectorSearch', '$listSessions', '$geoNear', '$search', '$planCacheStats']);

const TXN_COMMANDS_ALLOWED = new Set([
  'find', 'getMore', 'insert', 'update', 'delete', 'findAndModify', 'findandmodify', 'aggregate', 'distinct', 'bulkWrite',
  'commitTransaction', 'abortTransaction', 'killCursors', 'create', 'createIndexes', 'ping',
]);

export class Core {
  readonly engine = new Engine();
  private readonly cursors = new Map<number, Cursor>();
  private readonly sessions = new Map<string, Session>();
  private nextCursorId = 1 + Math.floor(Math.random() * 1e6) * 1000;
  private readonly handlers: Record<string, Handler>;
  readonly startedAt = Date.now();
  /** Connections open now (server.ts reports them with connectionOpened / connectionClosed). */
  private readonly openConnections = new Set<number>();
  private totalConnections = 0;
  /** Set by the server when a journal is attached: resolves once all logged writes are durable. */
  durable: (() => Promise<void>) | null = null;
  /** How many levels a stored document may nest (MongoDB: 180). */
  private readonly maxStorageDepth: number;
  private readonly transactionLifetimeMs: number;

  constructor(private readonly opts: CoreOptions) {
    this.maxStorageDepth = maxDepthForUserStorage(opts.maxBSONDepth ?? DEFAULT_MAX_BSON_DEPTH);
    this.transactionLifetimeMs = checkTransactionLifetime(opts.transactionLifetimeMs ?? DEFAULT_TRANSACTION_LIFETIME_MS);
    const h: Record<string, Handler> = {
      hello: (c, x) => this.hello(c, x, false),
      isMaster: (c, x) => this.hello(c, x, true),
      ismaster: (c, x) => this.hello(c, x, true),
      ping: () => ({ ok: 1 }),
      buildInfo: () => this.buildInfo(),
      buildinfo: () => this.buildInfo(),
      insert: (c, x) => this.insert(c, x),
      bulkWrite: (c, x) => this.bulkWrite(c, x),
      find: (c, x) => this.find(c, x),
      getMore: (c) => this.getMore(c),
      killCursors: (c) => this.killCursors(c),
      update: (c, x) => this.update(c, x),
      delete: (c, x) => this.delete(c, x),
      findAndModify: (c, x) => this.findAndModify(c, x),
      findandmodify: (c, x) => this.findAndModify(c, x),
      aggregate: (c, x) => this.aggregate(c, x),
      count: (c, x) => this.count(c, x),
      distinct: (c, x) => this.distinct(c, x),
      createIndexes: (c, x) => this.createIndexes(c, x),
      listIndexes: (c, x) => this.listIndexes(c, x),
      dropIndexes: (c, x) => this.dropIndexes(c, x),
      deleteIndexes: (c, x) => this.dropIndexes(c, x),
      listCollections: (c, x) => this.listCollections(c, x),
      create: (c, x) => this.create(c, x),
      drop: (c, x) => this.drop(c, x),
      dropDatabase: (_c, x) => {
        this.engine.dropDb(x.db);
        return { ok: 1 };
      },
      listDatabases: (c) => this.listDatabases(c),
      endSessions: (c) => this.endSessions(c),
      killSessions: (c) => this.endSessions({ endSessions: c.killSessions }),
      refreshSessions: () => ({ ok: 1 }),
      startSession: () => ({ id: { id: new UUID() }, timeoutMinutes: 30, ok: 1 }),
      commitTransaction: (_c, x) => this.commitTransaction(x),
      abortTransaction: (_c, x) => this.abortTransaction(x),
      explain: (c, x) => this.explain(c, x),
      serverStatus: () => this.serverStatus(),
      dbStats: (c, x) => this.dbStats(c, x),
      collStats: (c, x) => this.collStats(c, x),
      connectionStatus: () => ({ authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] }, ok: 1 }),
      hostInfo: () => ({
        system: { currentTime: new Date(), hostname: os.hostname(), cpuAddrSize: 64, memSizeMB: Math.round(os.totalmem() / 1048576), numCores: os.cpus().length, cpuArch: os.arch() },
        os: { type: os.type(), name: os.type(), version: os.release() },
        extra: {},
        ok: 1,
      }),
      getParameter: (c) => this.getParameter(c),
      getCmdLineOpts: () => ({ argv: ['mongo-embedded'], parsed: {}, ok: 1 }),
      whatsmyuri: (_c, x) => ({ you: x.remote, ok: 1 }),
      getLog: (c) => (c.getLog === '*' ? { names: ['startupWarnings'], ok: 1 } : { totalLinesWritten: 0, log: [], ok: 1 }),
      getFreeMonitoringStatus: () => ({ state: 'disabled', ok: 1 }),
      replSetGetStatus: () => this.replSetGetStatus(),
    };
    this.handlers = h;
  }

  // ---- dispatch ----------------------------------------------------------------------------------

  async run(body: Doc, connectionId: number, remote: string): Promise<Doc> {
    const name = Object.keys(body)[0];
    this.engine.stats.commands++;
    const ctx: CommandContext = { db: typeof body.$db === 'string' ? body.$db : 'admin', txn: null, session: null, connectionId, remote };
    const seqBefore = this.engine.writeSeq;
    let reply: Doc;
    try {
      const handler = name === undefined ? undefined : Object.prototype.hasOwnProperty.call(this.handlers, name) ? this.handlers[name] : undefined;
      if (!handler) throw err(59, `no such command: '${name}'`);
      checkCollation(body.collation);
      this.attachSession(body, name, ctx);
      reply = await handler(body, ctx);
      if (ctx.txn && Array.isArray(reply.writeErrors) && reply.writeErrors.length) this.engine.abortTxn(ctx.txn, 'write error');
    } catch (e) {
      if (ctx.txn && ctx.txn.state === 'active' && name !== 'commitTransaction') this.engine.abortTxn(ctx.txn, 'command failed');
      reply = toErrorReply(e);
      if (!(e instanceof MongoCommandError)) this.opts.logger?.(`command ${name} failed: ${(e as Error)?.stack ?? e}`);
    }
    // A command its connection sent before closing ran after the close: the same rule holds for it.
    if (ctx.session && !this.openConnections.has(connectionId)) this.abortOrphaned(ctx.session, connectionId);
    if (this.engine.writeSeq !== seqBefore && this.durable) {
      try {
        await this.durable();
      } catch (e) {
        reply = { ok: 0, errmsg: `journal write failed: ${(e as Error).message}`, code: 1, codeName: 'InternalError' };
      }
    }
    return reply;
  }

  private attachSession(body: Doc, name: string, ctx: CommandContext): void {
    const lsid = body.lsid;
    if (!lsid || !lsid.id) return;
    const key = sessionKey(lsid.id);
    let s = this.sessions.get(key);
    if (!s) {
      s = { key, txn: null, lastTxnNumber: -1, lastUsed: Date.now(), lastConnection: ctx.connectionId };
      this.sessions.set(key, s);
    }
    s.lastUsed = Date.now();
    s.lastConnection = ctx.connectionId;
    ctx.session = s;
    if (body.txnNumber === undefined || body.autocommit !== false) return;
    const n = Number(body.txnNumber);
    if (body.startTransaction) {
      if (s.txn && s.txn.state === 'active') {
        if (s.txn.txnNumber === n) throw err(251, `Transaction with txnNumber ${n} has already been started`);
        this.engine.abortTxn(s.txn, 'superseded');
      }
      if (n < s.lastTxnNumber) throw err(225, `Cannot start transaction ${n} on session because a newer transaction ${s.lastTxnNumber} has already started`);
      if (!TXN_COMMANDS_ALLOWED.has(name)) throw err(263, `Cannot run '${name}' in a multi-document transaction.`);
      const txn = new Txn(key, n);
      txn.timer = setTimeout(() => this.engine.abortTxn(txn, 'transaction lifetime exceeded'), this.transactionLifetimeMs);
      txn.timer.unref();
      this.engine.beginTxn(txn);
      s.txn = txn;
      s.lastTxnNumber = n;
      ctx.txn = txn;
      return;
    }
    const txn = s.txn;
    if (!txn || txn.txnNumber !== n) {
      if (name === 'abortTransaction' || name === 'commitTransaction' || n <= s.lastTxnNumber)
        throw err(251, `Transaction with { txnNumber: ${n} } has been aborted.`, {}, ['TransientTransactionError']);
      throw err(251, `Given transaction number ${n} does not match any in-progress transactions.`, {}, ['TransientTransactionError']);
    }
    if (txn.state === 'committed') {
      if (name === 'commitTransaction') {
        ctx.txn = txn;
        return;
      }
      throw err(256, `Transaction with { txnNumber: ${n} } has been committed.`);
    }
    if (txn.state === 'aborted') throw err(251, `Transaction with { txnNumber: ${n} } has been aborted.`, {}, ['TransientTransactionError']);
    if (!TXN_COMMANDS_ALLOWED.has(name)) throw err(263, `Cannot run '${name}' in a multi-document transaction.`);
    ctx.txn = txn;
  }

  // ---- handshake / info --------------------------------------------------------------------------

  private hello(cmd: Doc, ctx: CommandContext, legacy: boolean): Doc {
    const me = `${this.opts.host}:${this.opts.port()}`;
    const r: Doc = {
      ...(cmd.helloOk ? { helloOk: true } : {}),
      ...(legacy ? { ismaster: true } : { isWritablePrimary: true }),
      setName: this.opts.setName,
      setVersion: 1,
      secondary: false,
      hosts: [me],
      primary: me,
      me,
      electionId: ELECTION_ID,
      maxBsonObjectSize: MAX_BSON,
      maxMessageSizeBytes: 48_000_000,
      maxWriteBatchSize: 100_000,
      localTime: new Date(),
      logicalSessionTimeoutMinutes: 30,
      connectionId: ctx.connectionId,
      minWireVersion: 0,
      // 25: MongoDB 8.0, whose `bulkWrite` command (writes to several collections in one) is served here.
      maxWireVersion: 25,
      readOnly: false,
      ok: 1,
    };
    return r;
  }

  private buildInfo(): Doc {
    return {
      version: VERSION,
      gitVersion: 'mongo-embedded',
      versionArray: [8, 0, 0, 0],
      bits: 64,
      debug: false,
      maxBsonObjectSize: MAX_BSON,
      storageEngines: ['embedded'],
      javascriptEngine: 'none',
      modules: [],
      openssl: { running: 'disabled' },
      allocator: 'system',
      sysInfo: 'deprecated',
      ok: 1,
    };
  }

  private getParameter(cmd: Doc): Doc {
    const r: Doc = { ok: 1 };
    if (cmd.featureCompatibilityVersion !== undefined || cmd.getParameter === '*') r.featureCompatibilityVersion = { version: '7.0' };
    if (cmd.maxBSONDepth !== undefined || cmd.getParameter === '*') r.maxBSONDepth = this.opts.maxBSONDepth ?? DEFAULT_MAX_BSON_DEPTH;
    if (cmd.transactionLifetimeLimitSeconds !== undefined || cmd.getParameter === '*') r.transactionLifetimeLimitSeconds = this.transactionLifetimeMs / 1000;
    return r;
  }

  private replSetGetStatus(): Doc {
    const me = `${this.opts.host}:${this.opts.port()}`;
    return {
      set: this.opts.setName,
      date: new Date(),
      myState: 1,
      members: [{ _id: 0, name: me, health: 1, state: 1, stateStr: 'PRIMARY', self: true }],
      ok: 1,
    };
  }

  private serverStatus(): Doc {
    return {
      host: `${this.opts.host}:${this.opts.port()}`,
      version: VERSION,
      process: 'mongod',
      pid: Long.fromNumber(process.pid),
      uptime: Math.floor((Date.now() - this.startedAt) / 1000),
      uptimeMillis: Long.fromNumber(Date.now() - this.startedAt),
      localTime: new Date(),
      connections: { current: this.openConnections.size, available: 1_000_000, totalCreated: this.totalConnections },
      embedded: { ...this.engine.stats },
      ok: 1,
    };
  }

  private dbStats(_cmd: Doc, ctx: CommandContext): Doc {
    const d = this.engine.dbs.get(ctx.db);
    let objects = 0;
    let size = 0;
    let indexes = 0;
    for (const c of d?.collections.values() ?? []) {
      objects += c.docs.size;
      indexes += c.indexes.size + 1;
      for (const doc of c.docs.values()) size += calculateObjectSize(doc);
    }
    return {
      db: ctx.db,
      collections: d?.collections.size ?? 0,
      views: 0,
      objects,
      avgObjSize: objects ? size / objects : 0,
      dataSize: size,
      storageSize: size,
      indexes,
      indexSize: 0,
      totalSize: size,
      scaleFactor: 1,
      ok: 1,
    };
  }

  private collStats(cmd: Doc, ctx: CommandContext): Doc {
    const c = this.engine.getColl(ctx.db, String(cmd.collStats));
    if (!c) throw err(26, `ns not found: ${ctx.db}.${cmd.collStats}`);
    let size = 0;
    for (const doc of c.docs.values()) size += calculateObjectSize(doc);
    return { ns: c.ns, count: c.docs.size, size, avgObjSize: c.docs.size ? size / c.docs.size : 0, storageSize: size, nindexes: c.indexes.size + 1, totalIndexSize: 0, indexSizes: {}, ok: 1 };
  }

  private listDatabases(cmd: Doc): Doc {
    const dbs = [...this.engine.dbs.values()].map((d) => ({ name: d.name, sizeOnDisk: 0, empty: [...d.collections.values()].every((c) => c.docs.size === 0) }));
    let list: Doc[] = dbs;
    if (isPlainObject(cmd.filter)) {
      const q = newQuery(cmd.filter);
      list = list.filter((d) => q.test(d));
    }
    if (cmd.nameOnly) return { databases: list.map((d) => ({ name: d.name })), ok: 1 };
    return { databases: list, totalSize: 0, totalSizeMb: 0, ok: 1 };
  }

  private endSessions(cmd: Doc): Doc {
    const ids = Array.isArray(cmd.endSessions) ? cmd.endSessions : [];
    for (const l of ids) {
      if (!l?.id) continue;
      const key = sessionKey(l.id);
      const s = this.sessions.get(key);
      if (s?.txn) this.engine.abortTxn(s.txn, 'session ended');
      this.sessions.delete(key);
    }
    return { ok: 1 };
  }

  // ---- transactions ------------------------------------------------------------------------------

  private commitTransaction(ctx: CommandContext): Doc {
    const txn = ctx.txn;
    if (!txn) throw err(251, 'no transaction in progress', {}, ['TransientTransactionError']);
    if (txn.state === 'active') this.engine.commitTxn(txn);
    return { ok: 1 };
  }

  private abortTransaction(ctx: CommandContext): Doc {
    const txn = ctx.txn;
    if (!txn) throw err(251, 'no transaction in progress');
    this.engine.abortTxn(txn, 'abortTransaction');
    return { ok: 1 };
  }

  // ---- cursors -----------------------------------------------------------------------------------

  private cursorReply(ns: string, docs: Doc[], batchSize: number | undefined, singleBatch: boolean, field: 'firstBatch' | 'nextBatch'): Doc {
    const cur: Cursor = { id: 0, ns, docs, pos: 0, lastUsed: Date.now() };
    const batch = this.takeBatch(cur, batchSize);
    let id = 0;
    if (!singleBatch && cur.pos < docs.length) {
      id = this.nextCursorId++;
      cur.id = id;
      this.cursors.set(id, cur);
      this.sweepCursors();
    }
    return { cursor: { [field]: batch, id: Long.fromNumber(id), ns }, ok: 1 };
  }

  private takeBatch(cur: Cursor, batchSize: number | undefined): Doc[] {
    const limit = batchSize === undefined || batchSize <= 0 ? (batchSize === 0 ? 0 : Infinity) : batchSize;
    const end = Math.min(cur.docs.length, cur.pos + limit);
    if (end - cur.pos <= 100) {
      const b = cur.docs.slice(cur.pos, end);
      cur.pos = end;
      return b;
    }
    const out: Doc[] = [];
    let bytes = 0;
    while (cur.pos < end) {
      const d = cur.docs[cur.pos];
      bytes += calculateObjectSize(d);
      if (out.length > 0 && bytes > MAX_BSON - 64 * 1024) break;
      out.push(d);
      cur.pos++;
    }
    return out;
  }

  private sweepCursors(): void {
    if (this.cursors.size >= 10_000) this.sweep();
  }

  /** Drops cursors idle for 10 minutes and sessions idle for 30 (MongoDB's defaults). */
  sweep(now = Date.now()): void {
    for (const [id, c] of this.cursors) if (c.lastUsed < now - 10 * 60_000) this.cursors.delete(id);
    for (const [key, s] of this.sessions) {
      if (s.lastUsed >= now - 30 * 60_000) continue;
      if (s.txn) this.engine.abortTxn(s.txn, 'session expired');
      this.sessions.delete(key);
    }
  }

  private getMore(cmd: Doc): Doc {
    const id = Number(cmd.getMore);
    const cur = this.cursors.get(id);
    if (!cur) throw err(43, `cursor id ${id} not found`);
    cur.lastUsed = Date.now();
    const batch = this.takeBatch(cur, cmd.batchSize === undefined ? undefined : Number(cmd.batchSize));
    const done = cur.pos >= cur.docs.length;
    if (done) this.cursors.delete(id);
    return { cursor: { nextBatch: batch, id: Long.fromNumber(done ? 0 : id), ns: cur.ns }, ok: 1 };
  }

  private killCursors(cmd: Doc): Doc {
    const killed: Long[] = [];
    const notFound: Long[] = [];
    for (const raw of Array.isArray(cmd.cursors) ? cmd.cursors : []) {
      const id = Number(raw);
      (this.cursors.delete(id) ? killed : notFound).push(Long.fromNumber(id));
    }
    return { cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
  }

  // ---- reads -------------------------------------------------------------------------------------

  private collName(cmd: Doc, key: string): string {
    const n = cmd[key];
    if (typeof n !== 'string' || !n) throw err(73, `collection name has invalid type ${typeof n}`);
    return n;
  }

  /** Matching documents (stored objects: never mutate them). */
  match(coll: Collection | undefined, filter: Doc | undefined, txn: Txn | null, opts: { sort?: Doc; skip?: number; limit?: number } = {}): Doc[] {
    const f = isPlainObject(filter) ? filter : {};
    const hasFilter = Object.keys(f).length > 0;
    if (hasFilter) checkFilter(f);
    let test: ((d: Doc) => boolean) | null = null;
    let simple = false;
    if (hasFilter) {
      test = simpleMatcher(f);
      simple = test !== null;
      if (!test) {
        const q = newQuery(f);
        test = (d) => q.test(d);
      }
    }
    const sort = opts.sort && Object.keys(opts.sort).length && !('$natural' in opts.sort) ? opts.sort : undefined;
    const skip = opts.skip ?? 0;
    const limit = opts.limit ?? 0;
    // A page of a sorted query from an index in order: stop after the page and its ties.
    const walk = sort && limit > 0 && hasFilter ? this.engine.orderedWalk(coll, f, sort, txn) : null;
    if (walk && sort) {
      if (answeredByIndex(f, simple, walk.covers)) test = null;
      const want = skip + limit;
      let out: Doc[] = [];
      let last: number | undefined;
      let examined = 0;
      for (const { v, doc } of walk.docs) {
        if (last !== undefined && v !== last) break;
        examined++;
        if (test && !test(doc)) continue;
        out.push(doc);
        if (out.length === want) last = v;
      }
      this.engine.stats.keysExamined += examined;
      this.engine.stats.docsExamined += examined;
      // The rest of the sort orders the page and the ties at its end.
      out = sortDocs(out, sort, want);
      return out.slice(skip, want);
    }
    const { docs, plan } = this.engine.candidates(coll, hasFilter ? f : undefined, txn);
    // A filter the index lookup answered field by field (simple equalities and the range it scanned):
    // every candidate already matches (documents changed in the transaction are not in the index,
    // so they are tested).
    if (plan.covers && !(coll && txn?.writes.get(coll)) && answeredByIndex(f, simple, plan.covers, plan.rangeField)) test = null;
    const reverse = !!opts.sort && (opts.sort as Doc).$natural === -1;
    const stopAt = !sort && !reverse && limit > 0 ? skip + limit : Infinity;
    let out: Doc[] = [];
    let examined = 0;
    for (const d of docs) {
      examined++;
      if (!test || test(d)) {
        out.push(d);
        if (out.length >= stopAt) break;
      }
    }
    this.engine.stats.docsExamined += examined;
    if (sort) out = sortDocs(out, sort, limit > 0 ? skip + limit : 0);
    if (reverse) out.reverse();
    if (skip || limit) out = out.slice(skip, limit > 0 ? skip + limit : undefined);
    return out;
  }

  /**
   * A count the index answers alone (docs/adr/0077): the filter's every field is an equality the
   * index lookup answered exactly (as `match` trusts it, without testing a document), so the number
   * of documents under the key is the answer, and no document is listed. Null otherwise.
   */
  private indexCount(coll: Collection | undefined, query: unknown, txn: Txn | null): number | null {
    if (!isPlainObject(query)) return null;
    checkFilter(query);
    const simple = simpleMatcher(query) !== null;
    const found = this.engine.indexCount(coll, query, txn);
    return found && answeredByIndex(query, simple, found.covers) ? found.count : null;
  }

  private find(cmd: Doc, ctx: CommandContext): Doc {
    const name = this.collName(cmd, 'find');
    const coll = this.engine.getColl(ctx.db, name);
    if (cmd.filter !== undefined && !isPlainObject(cmd.filter)) throw err(14, "BSON field 'FindCommandRequest.filter' is the wrong type, expected type 'object'");
    if (cmd.tailable || cmd.awaitData) throw err(115, 'tailable cursors are not supported by the embedded server');
    let limit = cmd.limit === undefined ? 0 : Number(cmd.limit);
    let singleBatch = !!cmd.singleBatch;
    if (limit < 0) {
      limit = -limit;
      singleBatch = true;
    }
    let docs = this.match(coll, cmd.filter, ctx.txn, { sort: cmd.sort, skip: Number(cmd.skip ?? 0), limit });
    docs = project(docs, cmd.projection, cmd.filter);
    const batchSize = cmd.batchSize === undefined ? 101 : Number(cmd.batchSize);
    return this.cursorReply(`${ctx.db}.${name}`, docs, batchSize, singleBatch, 'firstBatch');
  }

  private count(cmd: Doc, ctx: CommandContext): Doc {
    const coll = this.engine.getColl(ctx.db, this.collName(cmd, 'count'));
    const skip = Number(cmd.skip ?? 0);
    const limit = Math.abs(Number(cmd.limit ?? 0));
    let n: number;
    if (!cmd.query || Object.keys(cmd.query).length === 0) n = this.engine.count(coll, ctx.txn);
    else n = this.indexCount(coll, cmd.query, ctx.txn) ?? this.match(coll, cmd.query, ctx.txn).length;
    n = Math.max(0, n - skip);
    if (limit > 0) n = Math.min(n, limit);
    return { n, ok: 1 };
  }

  private distinct(cmd: Doc, ctx: CommandContext): Doc {
    const coll = this.engine.getColl(ctx.db, this.collName(cmd, 'distinct'));
    const key = cmd.key;
    if (typeof key !== 'string') throw err(14, "BSON field 'distinct.key' is missing or has the wrong type");
    const seen = new Map<string, unknown>();
    for (const d of this.match(coll, cmd.query, ctx.txn)) {
      for (const v of valuesAt(d, key)) {
        if (v === undefined) continue;
        if (Array.isArray(v)) for (const x of v) seen.set(keyOf(x), x);
        else seen.set(keyOf(v), v);
      }
    }
    return { values: sortDocs([...seen.values()].map((v) => ({ v })), { v: 1 }).map((x) => x.v), ok: 1 };
  }

  private aggregate(cmd: Doc, ctx: CommandContext): Doc {
    const pipeline = cmd.pipeline;
    if (!Array.isArray(pipeline)) throw err(14, "'pipeline' option must be specified as an array");
    if (!cmd.explain && !isPlainObject(cmd.cursor)) throw err(9, "The 'cursor' option is required, except for aggregate with the explain argument");
    if (pipeline.length && isPlainObject(pipeline[0]) && ('$collStats' in pipeline[0] || '$indexStats' in pipeline[0])) {
      const first = this.statsStage(pipeline[0], ctx.db, String(cmd.aggregate));
      checkPipeline(pipeline.slice(1));
      const out = pipeline.length > 1 ? runAggregator(rewritePipeline(pipeline.slice(1)), first) : first;
      return this.cursorReply(`${ctx.db}.${cmd.aggregate}`, out, cmd.cursor?.batchSize, false, 'firstBatch');
    }
    const needsClone = checkPipeline(pipeline);
    const collectionLevel = typeof cmd.aggregate === 'string';
    if (!collectionLevel && !(pipeline.length && '$documents' in pipeline[0])) throw err(115, 'database-level aggregate is only supported with $documents in the embedded server');
    const coll = collectionLevel ? this.engine.getColl(ctx.db, cmd.aggregate) : undefined;
    let input: Doc[];
    let rest = pipeline;
    if (!collectionLevel) input = [];
    else if (pipeline.length && isPlainObject(pipeline[0].$match)) {
      // Leading $match stages coalesce into one, as MongoDB's optimizer does, so that all of them
      // choose the index (kit's scoped aggregates lead with the tenancy $match).
      let n = 1;
      while (n < pipeline.length && isPlainObject(pipeline[n]?.$match)) n++;
      const filter = n === 1 ? pipeline[0].$match : coalesce(pipeline.slice(0, n).map((st: Doc) => st.$match as Doc));
      input = this.match(coll, filter, ctx.txn);
      rest = pipeline.slice(n);
    } else input = [...this.engine.allDocs(coll, ctx.txn)];
    if (collectionLevel) this.engine.stats.docsExamined += 0;
    if (rest.length && isPlainObject(rest[0].$sort)) {
      const lim = rest.length > 1 && typeof rest[1].$limit === 'number' && rest[1].$limit > 0 ? rest[1].$limit : 0;
      const sorted = sortBySpec(input, rest[0].$sort, lim);
      if (sorted) {
        input = lim && sorted.length > lim ? sorted.slice(0, lim) : sorted;
        rest = rest.slice(lim ? 2 : 1);
      }
    }
    // countDocuments' pipeline ($match, then one group counting it): the count needs no aggregator.
    const counted = rest.length === 1 ? countField(rest[0]) : null;
    if (counted !== null && !cmd.explain) {
      const groupId = (rest[0].$group as Doc)._id;
      const out = input.length ? [{ _id: groupId, [counted]: input.length }] : [];
      return this.cursorReply(`${ctx.db}.${cmd.aggregate}`, out, cmd.cursor?.batchSize === undefined ? 101 : Number(cmd.cursor.batchSize), false, 'firstBatch');
    }
    if (needsClone) input = input.map(clone);
    // A leading $group of the common report shapes runs compiled; anything else, mingo (fast-group.ts).
    const group = rest.length && isPlainObject(rest[0]) && Object.keys(rest[0]).length === 1 && !cmd.explain ? compileGroup(rest[0].$group) : null;
    if (group) {
      try {
        input = group(input);
        rest = rest.slice(1);
        this.engine.stats.compiledGroups++;
      } catch (e) {
        if (!(e instanceof Unsupported)) throw e;
      }
    }
    const resolver = (name: string) => {
      const docs = [...this.engine.allDocs(this.engine.getColl(ctx.db, name), ctx.txn)];
      return needsClone ? docs.map(clone) : docs;
    };
    const out = rest.length ? runAggregator(rewritePipeline(rest), input, resolver) : input;
    if (cmd.explain) return { explainVersion: '1', stages: pipeline, ok: 1 };
    const batchSize = cmd.cursor?.batchSize === undefined ? 101 : Number(cmd.cursor.batchSize);
    return this.cursorReply(collectionLevel ? `${ctx.db}.${cmd.aggregate}` : `${ctx.db}.$cmd.aggregate`, out as Doc[], batchSize, false, 'firstBatch');
  }

  private statsStage(stage: Doc, db: string, collName: string): Doc[] {
    const c = this.engine.getColl(db, collName);
    const host = `${this.opts.host}:${this.opts.port()}`;
    if ('$indexStats' in stage) {
      if (!c) return [];
      return c.indexSpecs().map((spec) => ({ name: spec.name, key: spec.key, host, accesses: { ops: 0, since: new Date(this.startedAt) }, spec }));
    }
    if (!c) throw err(26, `Unable to retrieve storageStats in $collStats stage :: caused by :: Collection [${db}.${collName}] not found.`);
    let size = 0;
    for (const d of c.docs.values()) size += calculateObjectSize(d);
    const spec = isPlainObject(stage.$collStats) ? stage.$collStats : {};
    const out: Doc = { ns: c.ns, host, localTime: new Date() };
    if (spec.storageStats !== undefined) {
      const indexSizes: Doc = {};
      for (const i of c.indexSpecs()) indexSizes[i.name] = 0;
      out.storageStats = { size, count: c.docs.size, avgObjSize: c.docs.size ? Math.round(size / c.docs.size) : 0, storageSize: size, freeStorageSize: 0, capped: false, nindexes: c.indexes.size + 1, totalIndexSize: 0, totalSize: size, indexSizes, scaleFactor: 1 };
    }
    if (spec.count !== undefined) out.count = c.docs.size;
    if (spec.latencyStats !== undefined) out.latencyStats = { reads: { latency: 0, ops: 0 }, writes: { latency: 0, ops: 0 }, commands: { latency: 0, ops: 0 }, transactions: { latency: 0, ops: 0 } };
    return [out];
  }

  private explain(cmd: Doc, ctx: CommandContext): Doc {
    const inner = cmd.explain;
    if (!isPlainObject(inner)) throw err(9, 'explain command requires a nested object');
    const name = Object.keys(inner)[0];
    let filter: Doc | undefined;
    let collName: string;
    if (name === 'find') {
      filter = inner.filter;
      collName = inner.find;
    } else if (name === 'count') {
      filter = inner.query;
      collName = inner.count;
    } else if (name === 'aggregate') {
      collName = inner.aggregate;
      filter = Array.isArray(inner.pipeline) && isPlainObject(inner.pipeline[0]?.$match) ? inner.pipeline[0].$match : undefined;
    } else if (name === 'distinct') {
      filter = inner.query;
      collName = inner.distinct;
    } else throw err(59, `Explain failed due to unknown command: ${name}`);
    const coll = this.engine.getColl(ctx.db, collName);
    const before = { ...this.engine.stats };
    const t0 = Date.now();
    const hasFilter = isPlainObject(filter) && Object.keys(filter).length > 0;
    const plan = coll ? this.engine.plan(coll, hasFilter ? filter : undefined) : { ids: null, index: null };
    const n = this.match(coll, filter, ctx.txn, name === 'find' ? { sort: inner.sort, skip: inner.skip, limit: inner.limit } : {}).length;
    const keys = this.engine.stats.keysExamined - before.keysExamined;
    const docsExamined = this.engine.stats.docsExamined - before.docsExamined;
    const scan = plan.index
      ? { stage: 'FETCH', inputStage: { stage: 'IXSCAN', indexName: plan.index, keysExamined: keys } }
      : { stage: 'COLLSCAN', docsExamined };
    return {
      explainVersion: '1',
      queryPlanner: { namespace: `${ctx.db}.${collName}`, parsedQuery: filter ?? {}, winningPlan: scan, rejectedPlans: [] },
      executionStats: { executionSuccess: true, nReturned: n, executionTimeMillis: Date.now() - t0, totalKeysExamined: keys, totalDocsExamined: docsExamined, executionStages: scan },
      command: inner,
      serverInfo: { host: this.opts.host, port: this.opts.port(), version: VERSION },
      ok: 1,
    };
  }

  // ---- writes ------------------------------------------------------------------------------------

  /** Runs write statements one by one; a statement blocked by a live transaction waits for it. */
  private async statements<T>(items: T[], ordered: boolean, fn: (item: T, i: number) => void): Promise<Doc[]> {
    const writeErrors: Doc[] = [];
    for (let i = 0; i < items.length; i++) {
      for (;;) {
        try {
          fn(items[i], i);
          break;
        } catch (e) {
          if (e instanceof Blocked) {
            await e.txn.done;
            continue;
          }
          if (e instanceof MongoCommandError && e.code !== 112 && e.code !== 251) {
            writeErrors.push({ index: i, code: e.code, errmsg: e.message, ...e.extra });
            break;
          }
          throw e;
        }
      }
      if (writeErrors.length && ordered) break;
    }
    return writeErrors;
  }

  private async insert(cmd: Doc, ctx: CommandContext): Promise<Doc> {
    const name = this.collName(cmd, 'insert');
    const docs = cmd.documents;
    if (!Array.isArray(docs)) throw err(9, "BSON field 'insert.documents' is missing but a required field");
    const coll = this.engine.ensureColl(ctx.db, name);
    let n = 0;
    const writeErrors = await this.statements(docs, cmd.ordered !== false, (raw: Doc) => {
      const live = this.liveColl(coll);
      let doc = raw;
      if (doc._id === undefined) doc = { _id: new ObjectId(), ...doc };
      else if (Object.keys(doc)[0] !== '_id') {
        const { _id, ...rest } = doc;
        doc = { _id, ...rest };
      }
      checkInsertDepth(doc, this.maxStorageDepth);
      validateDoc(doc);
      this.engine.insert(live, doc, ctx.txn);
      n++;
    });
    return withErrors({ n, ok: 1 }, writeErrors);
  }

  /**
   * MongoDB 8.0's `bulkWrite` (on admin): `ops` against the namespaces of `nsInfo`, in order, each
   * applied as the matching insert, update or delete command would apply it (in the command's
   * transaction, if any). Replies with the counts and a cursor of the results (only the errors when
   * `errorsOnly`), all in its first batch; an ordered bulk stops at its first write error.
   */
  private async bulkWrite(cmd: Doc, ctx: CommandContext): Promise<Doc> {
    const ops = cmd.ops;
    const nsInfo = cmd.nsInfo;
    if (!Array.isArray(ops)) throw err(9, "BSON field 'bulkWrite.ops' is missing but a required field");
    if (!Array.isArray(nsInfo)) throw err(9, "BSON field 'bulkWrite.nsInfo' is missing but a required field");
    if (ctx.db !== 'admin') throw err(13, 'bulkWrite may only be run against the admin database.');
    const namespaces = nsInfo.map((n: Doc) => {
      const ns = typeof n?.ns === 'string' ? n.ns : '';
      const dot = ns.indexOf('.');
      if (dot <= 0 || dot === ns.length - 1) throw err(73, `Invalid namespace specified '${ns}'`);
      return { db: ns.slice(0, dot), coll: ns.slice(dot + 1) };
    });
    const ordered = cmd.ordered !== false;
    const errorsOnly = cmd.errorsOnly === true;
    const results: Doc[] = [];
    const counts = { nInserted: 0, nMatched: 0, nModified: 0, nUpserted: 0, nDeleted: 0 };
    let nErrors = 0;
    for (let idx = 0; idx < ops.length; idx++) {
      const op = ops[idx] as Doc;
      const kind = 'insert' in op ? 'insert' : 'update' in op ? 'update' : 'delete' in op ? 'delete' : null;
      if (!kind) throw err(9, `Unrecognized bulkWrite operation at index ${idx}`);
      const target = namespaces[Number(op[kind])];
      if (!target) throw err(9, `BulkWrite ops entry ${idx} has an invalid namespace index ${op[kind]}`);
      const sub: CommandContext = { ...ctx, db: target.db };
      let reply: Doc;
      if (kind === 'insert') {
        reply = await this.insert({ insert: target.coll, documents: [op.document] }, sub);
        counts.nInserted += reply.n;
      } else if (kind === 'update') {
        const st: Doc = { q: op.filter, u: op.updateMods, multi: !!op.multi, upsert: !!op.upsert };
        for (const k of ['arrayFilters', 'collation', 'sort', 'hint'] as const) if (op[k] !== undefined) st[k] = op[k];
        reply = await this.update({ update: target.coll, updates: [st] }, sub);
        const upserted = Array.isArray(reply.upserted) ? reply.upserted.length : 0;
        counts.nMatched += reply.n - upserted;
        counts.nModified += reply.nModified;
        counts.nUpserted += upserted;
      } else {
        const st: Doc = { q: op.filter, limit: op.multi ? 0 : 1 };
        if (op.collation !== undefined) st.collation = op.collation;
        reply = await this.delete({ delete: target.coll, deletes: [st] }, sub);
        counts.nDeleted += reply.n;
      }
      const writeError = Array.isArray(reply.writeErrors) ? reply.writeErrors[0] : undefined;
      if (writeError) {
        const { index: _index, ...rest } = writeError;
        results.push({ ok: 0, idx, ...rest });
        nErrors++;
        if (ordered) break;
      } else if (!errorsOnly) {
        const r: Doc = { ok: 1, idx, n: reply.n };
        if (kind === 'update') {
          r.nModified = reply.nModified;
          if (Array.isArray(reply.upserted) && reply.upserted.length) r.upserted = { _id: reply.upserted[0]._id };
        }
        results.push(r);
      }
    }
    // In a transaction a write error aborts it, as the single-collection commands' writeErrors do (run()).
    if (nErrors && ctx.txn) this.engine.abortTxn(ctx.txn, 'write error');
    return { cursor: { id: new Long(0), firstBatch: results, ns: 'admin.$cmd.bulkWrite' }, nErrors, ...counts, ok: 1 };
  }

  /** The collection object currently registered under coll's name (it may have been dropped and re-created). */
  private liveColl(coll: Collection): Collection {
    return coll.dropped ? this.engine.ensureColl(coll.db, coll.name) : coll;
  }

  private async update(cmd: Doc, ctx: CommandContext): Promise<Doc> {
    const name = this.collName(cmd, 'update');
    const updates = cmd.updates;
    if (!Array.isArray(updates)) throw err(9, "BSON field 'update.updates' is missing but a required field");
    let n = 0;
    let nModified = 0;
    const upserted: Doc[] = [];
    const writeErrors = await this.statements(updates, cmd.ordered !== false, (st: Doc, i) => {
      const r = this.updateOne(ctx, name, st);
      n += r.n;
      nModified += r.nModified;
      if (r.upsertedId !== undefined) upserted.push({ index: i, _id: r.upsertedId });
    });
    const reply: Doc = { n, nModified, ok: 1 };
    if (upserted.length) reply.upserted = upserted;
    return withErrors(reply, writeErrors);
  }

  private updateOne(ctx: CommandContext, name: string, st: Doc): { n: number; nModified: number; upsertedId?: unknown } {
    checkCollation(st.collation);
    const u = st.u;
    const kind = updateKind(u);
    if (kind === 'replacement' && st.multi) throw err(9, 'multi update is not supported for replacement-style update');
    const coll = this.engine.getColl(ctx.db, name);
    const targets = coll ? this.match(coll, st.q, ctx.txn, st.multi ? { sort: st.sort } : { sort: st.sort, limit: 1 }) : [];
    if (targets.length === 0) {
      if (!st.upsert) return { n: 0, nModified: 0 };
      const doc = buildUpsert(st.q ?? {}, u, kind, st.arrayFilters);
      checkUpdateDepth(doc, this.maxStorageDepth);
      validateDoc(doc);
      const c = this.engine.ensureColl(ctx.db, name);
      this.engine.insert(c, doc, ctx.txn);
      return { n: 1, nModified: 0, upsertedId: doc._id };
    }
    const c = coll!;
    const ids = targets.map((d) => keyOf(d._id));
    this.engine.checkWritable(c, ids, ctx.txn);
    const changes: { id: string; doc: Doc }[] = [];
    targets.forEach((d, i) => {
      const nd = applyUpdate(d, u, kind, st.arrayFilters, st.q, false);
      if (nd) {
        checkUpdateDepth(nd, this.maxStorageDepth);
        changes.push({ id: ids[i], doc: nd });
      }
    });
    for (const ch of changes) this.engine.checkKeys(c, ch.doc, ctx.txn);
    let nModified = 0;
    for (const ch of changes) {
      validateDoc(ch.doc);
      this.engine.replace(c, ch.id, ch.doc, ctx.txn);
      nModified++;
    }
    return { n: targets.length, nModified };
  }

  private async delete(cmd: Doc, ctx: CommandContext): Promise<Doc> {
    const name = this.collName(cmd, 'delete');
    const deletes = cmd.deletes;
    if (!Array.isArray(deletes)) throw err(9, "BSON field 'delete.deletes' is missing but a required field");
    let n = 0;
    const writeErrors = await this.statements(deletes, cmd.ordered !== false, (st: Doc) => {
      const coll = this.engine.getColl(ctx.db, name);
      if (!coll) return;
      checkCollation(st.collation);
      const limit = Number(st.limit ?? 0);
      const targets = this.match(coll, st.q, ctx.txn, limit === 1 ? { limit: 1 } : {});
      const ids = targets.map((d) => keyOf(d._id));
      this.engine.checkWritable(coll, ids, ctx.txn);
      for (const id of ids) this.engine.remove(coll, id, ctx.txn);
      n += ids.length;
    });
    return withErrors({ n, ok: 1 }, writeErrors);
  }

  private async findAndModify(cmd: Doc, ctx: CommandContext): Promise<Doc> {
    const name = typeof cmd.findAndModify === 'string' ? cmd.findAndModify : cmd.findandmodify;
    if (typeof name !== 'string') throw err(73, 'invalid collection name');
    const remove = !!cmd.remove;
    const u = cmd.update;
    if (remove && u !== undefined) throw err(9, 'Cannot specify both an update and remove=true');
    if (!remove && u === undefined) throw err(9, 'Either an update or remove=true must be specified');
    if (remove && cmd.upsert) throw err(9, 'Cannot specify both upsert=true and remove=true');
    if (remove && cmd.new) throw err(9, 'Cannot specify both new=true and remove=true; \'remove\' always returns the deleted document');
    const kind = remove ? 'replacement' : updateKind(u);
    for (;;) {
      try {
        const coll = this.engine.getColl(ctx.db, name);
        const target = coll ? this.match(coll, cmd.query, ctx.txn, { sort: cmd.sort, limit: 1 })[0] : undefined;
        let value: Doc | null = null;
        const lastErrorObject: Doc = { n: 0 };
        if (remove) {
          if (target && coll) {
            const id = keyOf(target._id);
            this.engine.checkWritable(coll, [id], ctx.txn);
            this.engine.remove(coll, id, ctx.txn);
            value = target;
            lastErrorObject.n = 1;
          }
        } else if (target && coll) {
          const id = keyOf(target._id);
          this.engine.checkWritable(coll, [id], ctx.txn);
          const nd = applyUpdate(target, u, kind, cmd.arrayFilters, cmd.query, false);
          if (nd) {
            checkUpdateDepth(nd, this.maxStorageDepth);
            validateDoc(nd);
            this.engine.checkKeys(coll, nd, ctx.txn);
            this.engine.replace(coll, id, nd, ctx.txn);
          }
          value = cmd.new ? (nd ?? target) : target;
          lastErrorObject.n = 1;
          lastErrorObject.updatedExisting = true;
        } else if (cmd.upsert) {
          const doc = buildUpsert(cmd.query ?? {}, u, kind, cmd.arrayFilters);
          checkUpdateDepth(doc, this.maxStorageDepth);
          validateDoc(doc);
          const c = this.engine.ensureColl(ctx.db, name);
          this.engine.insert(c, doc, ctx.txn);
          value = cmd.new ? doc : null;
          lastErrorObject.n = 1;
          lastErrorObject.updatedExisting = false;
          lastErrorObject.upserted = doc._id;
        } else lastErrorObject.updatedExisting = false;
        if (value && cmd.fields && Object.keys(cmd.fields).length) value = project([value], cmd.fields, cmd.query)[0];
        return { lastErrorObject, value, ok: 1 };
      } catch (e) {
        if (e instanceof Blocked) {
          await e.txn.done;
          continue;
        }
        throw e;
      }
    }
  }

  // ---- namespaces and indexes --------------------------------------------------------------------

  private create(cmd: Doc, ctx: CommandContext): Doc {
    const name = this.collName(cmd, 'create');
    if (this.engine.getColl(ctx.db, name)) throw err(48, `Collection ${ctx.db}.${name} already exists.`);
    if (cmd.viewOn !== undefined) throw err(115, 'views are not supported by the embedded server');
    for (const k of ['capped', 'timeseries', 'clusteredIndex', 'validator', 'changeStreamPreAndPostImages', 'encryptedFields']) {
      if (cmd[k] !== undefined && cmd[k] !== false && !(k === 'validator' && isPlainObject(cmd[k]) && Object.keys(cmd[k]).length === 0))
        throw err(115, `collection option '${k}' is not supported by the embedded server`);
    }
    const options: Doc = {};
    for (const k of Object.keys(cmd)) {
      if (k === 'create' || k.startsWith('$') || ['lsid', 'txnNumber', 'autocommit', 'startTransaction', 'writeConcern', 'readConcern', 'comment'].includes(k)) continue;
      options[k] = cmd[k];
    }
    this.engine.ensureColl(ctx.db, name, options);
    return { ok: 1 };
  }

  private drop(cmd: Doc, ctx: CommandContext): Doc {
    const name = this.collName(cmd, 'drop');
    const c = this.engine.dropColl(ctx.db, name);
    if (!c) return { ok: 1 };
    return { nIndexesWas: c.indexes.size + 1, ns: c.ns, ok: 1 };
  }

  private listCollections(cmd: Doc, ctx: CommandContext): Doc {
    const d = this.engine.dbs.get(ctx.db);
    let items: Doc[] = [...(d?.collections.values() ?? [])].map((c) => ({
      name: c.name,
      type: 'collection',
      options: c.options,
      info: { readOnly: false, uuid: c.uuid },
      idIndex: { v: 2, key: { _id: 1 }, name: '_id_' },
    }));
    if (isPlainObject(cmd.filter) && Object.keys(cmd.filter).length) {
      const q = newQuery(cmd.filter);
      items = items.filter((i) => q.test(i));
    }
    if (cmd.nameOnly) items = items.map((i) => ({ name: i.name, type: i.type }));
    return this.cursorReply(`${ctx.db}.$cmd.listCollections`, items, cmd.cursor?.batchSize, false, 'firstBatch');
  }

  private listIndexes(cmd: Doc, ctx: CommandContext): Doc {
    const name = this.collName(cmd, 'listIndexes');
    const c = this.engine.getColl(ctx.db, name);
    if (!c) throw err(26, `ns does not exist: ${ctx.db}.${name}`);
    return this.cursorReply(`${ctx.db}.$cmd.listIndexes.${name}`, c.indexSpecs(), cmd.cursor?.batchSize, false, 'firstBatch');
  }

  private createIndexes(cmd: Doc, ctx: CommandContext): Doc {
    const name = this.collName(cmd, 'createIndexes');
    const specs = cmd.indexes;
    if (!Array.isArray(specs) || specs.length === 0) throw err(2, 'Must specify at least one index to create');
    const existed = !!this.engine.getColl(ctx.db, name);
    const normalized = specs.map(normalizeIndexSpec);
    const coll = this.engine.ensureColl(ctx.db, name);
    const before = coll.indexes.size + 1;
    let created = 0;
    for (const spec of normalized) {
      if (spec.name === '_id_' || keyOf(spec.key) === keyOf({ _id: 1 })) {
        if (spec.name !== '_id_' || keyOf(spec.key) !== keyOf({ _id: 1 }) || spec.unique === false) {
          throw err(85, `Index with name: ${spec.name} already exists with a different name or options`);
        }
        continue;
      }
      const byName = coll.indexes.get(spec.name);
      if (byName) {
        if (keyOf(byName.spec.key) !== keyOf(spec.key))
          throw err(86, `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(byName.spec)}`);
        if (optionsKey(byName.spec) !== optionsKey(spec))
          throw err(85, `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(byName.spec)}`);
        continue;
      }
      const sameKey = [...coll.indexes.values()].find((i) => keyOf(i.spec.key) === keyOf(spec.key) && keyOf(i.spec.partialFilterExpression) === keyOf(spec.partialFilterExpression));
      if (sameKey) {
        if (optionsKey(sameKey.spec) === optionsKey(spec)) throw err(85, `Index already exists with a different name: ${sameKey.name}`);
        throw err(85, `An equivalent index already exists with a different name and options. Requested index: ${JSON.stringify(spec)}, existing index: ${JSON.stringify(sameKey.spec)}`);
      }
      this.engine.createIndex(coll, spec);
      created++;
    }
    const reply: Doc = { numIndexesBefore: before, numIndexesAfter: coll.indexes.size + 1, createdCollectionAutomatically: !existed, ok: 1 };
    if (created === 0) reply.note = 'all indexes already exist';
    return reply;
  }

  private dropIndexes(cmd: Doc, ctx: CommandContext): Doc {
    const name = typeof cmd.dropIndexes === 'string' ? cmd.dropIndexes : cmd.deleteIndexes;
    const c = this.engine.getColl(ctx.db, name);
    if (!c) throw err(26, `ns not found ${ctx.db}.${name}`);
    const was = c.indexes.size + 1;
    const idx = cmd.index;
    let names: string[];
    if (idx === '*') names = [...c.indexes.keys()];
    else if (typeof idx === 'string') names = [idx];
    else if (Array.isArray(idx)) names = idx.map(String);
    else if (isPlainObject(idx)) {
      if (keyOf(idx) === keyOf({ _id: 1 })) throw err(72, 'cannot drop _id index');
      const found = [...c.indexes.values()].find((i) => keyOf(i.spec.key) === keyOf(idx));
      if (!found) throw err(27, `can't find index with key: ${JSON.stringify(idx)}`);
      names = [found.name];
    } else throw err(14, "BSON field 'dropIndexes.index' is the wrong type");
    for (const n of names) {
      if (n === '_id_') throw err(72, 'cannot drop _id index');
      if (!c.indexes.has(n)) throw err(27, `index not found with name [${n}]`);
    }
    for (const n of names) this.engine.dropIndex(c, n);
    return { nIndexesWas: was, ok: 1 };
  }

  // ---- TTL ---------------------------------------------------------------------------------------

  /** Deletes expired documents of every TTL index; returns how many were removed. */
  ttlSweep(now = Date.now()): number {
    let removed = 0;
    for (const d of this.engine.dbs.values()) {
      for (const c of d.collections.values()) {
        for (const ix of c.indexes.values()) {
          const exp = ix.spec.expireAfterSeconds;
          if (typeof exp !== 'number' || ix.fields.length !== 1) continue;
          const expired: string[] = [];
          for (const [id, doc] of c.docs) {
            if (ix.partial && !ix.partial.test(doc)) continue;
            let min = Infinity;
            for (const v of valuesAt(doc, ix.fields[0])) {
              const arr = Array.isArray(v) ? v : [v];
              for (const x of arr) if (x instanceof Date && x.getTime() < min) min = x.getTime();
            }
            if (min !== Infinity && min + exp * 1000 <= now && !this.engine.locks.has(c.ns + '\0' + id)) expired.push(id);
          }
          for (const id of expired) this.engine.remove(c, id, null);
          removed += expired.length;
        }
      }
    }
    return removed;
  }

  connectionOpened(connectionId: number): void {
    this.openConnections.add(connectionId);
    this.totalConnections++;
  }

  /**
   * A connection closed (its peer closed it, or died: a SIGKILLed process's sockets close at once),
   * or the in-process client closed it. The transaction of each session whose latest command came
   * on this connection is aborted now, releasing its documents and unique keys, instead of holding
   * them until the lifetime limit: nobody is left to commit it.
   *
   * The rule: abort when the closing connection is the last one that used the session. A driver
   * may run a session's commands on any connection of its pool, so a session also used on another
   * connection after this one's last command lives on there (that connection is open: had it closed
   * first, it would have been the last user then and aborted the transaction itself). A connection
   * that used the session only before this one's last command does not keep it: the session moved
   * away from it. One consequence, which a real mongod does not have: a pool that closes the
   * connection its transaction last used (e.g. maxIdleTimeMS with the transaction idle that long)
   * aborts the transaction; its next command gets NoSuchTransaction (251, TransientTransactionError,
   * which withTransaction retries).
   */
  connectionClosed(connectionId: number): void {
    this.openConnections.delete(connectionId);
    for (const s of this.sessions.values()) this.abortOrphaned(s, connectionId);
  }

  private abortOrphaned(s: Session, closedConnectionId: number): void {
    if (s.lastConnection !== closedConnectionId || s.txn?.state !== 'active') return;
    this.opts.logger?.(`aborting transaction ${s.txn.txnNumber} of session ${s.key}: its connection ${closedConnectionId} closed`);
    this.engine.abortTxn(s.txn, 'connection closed');
  }

  abortAll(): void {
    for (const s of this.sessions.values()) if (s.txn) this.engine.abortTxn(s.txn, 'shutdown');
    this.sessions.clear();
    this.cursors.clear();
  }
}

const ELECTION_ID = new ObjectId('7fffffff0000000000000001');

/** MongoDB's transactionLifetimeLimitSeconds default: 60 s. */
export const DEFAULT_TRANSACTION_LIFETIME_MS = 60_000;

/** A lifetime setTimeout can wait for: over 2^31 − 1 ms it would fire at once. */
function checkTransactionLifetime(ms: number): number {
  if (!Number.isFinite(ms) || ms <= 0 || ms > 2_147_483_647) throw new RangeError(`transactionLifetimeMs must be from 1 to 2147483647, not ${ms}`);
  return ms;
}

function sessionKey(id: unknown): string {
  const b = id as { buffer?: Uint8Array; toHexString?: () => string };
  if (b && b.buffer) return Buffer.from(b.buffer).toString('hex');
  return keyOf(id);
}

export function toErrorReply(e: unknown): Doc {
  if (e instanceof MongoCommandError) return e.toReply();
  const msg = e instanceof Error ? e.message : String(e);
  return { ok: 0, errmsg: msg, code: 2, codeName: 'BadValue' };
}

function withErrors(reply: Doc, writeErrors: Doc[]): Doc {
  if (writeErrors.length) reply.writeErrors = writeErrors;
  return reply;
}

function runAggregator(pipeline: Doc[], input: Doc[], resolver?: (name: string) => Doc[]): Doc[] {
  try {
    return makeAggregator(pipeline, resolver).run(input) as Doc[];
  } catch (e) {
    if (e instanceof MongoCommandError) throw e;
    throw err(2, (e as Error).message);
  }
}

function newQuery(filter: Doc) {
  try {
    return makeQuery(filter);
  } catch (e) {
    throw err(2, (e as Error).message);
  }
}

/** Sorts by a MongoDB sort spec; with `limit` > 0 only the first `limit` documents are returned. */
export function sortDocs<T extends Doc>(docs: T[], sort: Doc, limit = 0): T[] {
  const out = sortBySpec(docs, sort, limit) ?? makeQuery({}).find<T>(docs).sort(sort as never).all();
  return limit > 0 && out.length > limit ? out.slice(0, limit) : out;
}

function project(docs: Doc[], projection: unknown, filter: unknown): Doc[] {
  if (!isPlainObject(projection) || Object.keys(projection).length === 0) return docs;
  const simple = simpleProjection(projection);
  if (simple) return docs.map(simple);
  const positional = Object.keys(projection).some((k) => k.endsWith('.$'));
  const q = makeQuery(positional && isPlainObject(filter) ? filter : {});
  try {
    return q.find<Doc>(docs, projection as never).all().map(idFirst);
  } catch (e) {
    throw err(2, (e as Error).message);
  }
}

/** Rewrites stages where mingo differs from MongoDB ($count on no input yields no document). */
function rewritePipeline(pipeline: Doc[]): Doc[] {
  const out: Doc[] = [];
  for (const st of pipeline) {
    if (!isPlainObject(st)) {
      out.push(st);
      continue;
    }
    if (typeof st.$count === 'string') {
      out.push({ $group: { _id: null, [st.$count]: { $sum: 1 } } }, { $project: { _id: 0 } });
    } else if (isPlainObject(st.$facet)) {
      const f: Doc = {};
      for (const [k, v] of Object.entries(st.$facet)) f[k] = Array.isArray(v) ? rewritePipeline(v) : v;
      out.push({ $facet: f });
    } else if (isPlainObject(st.$lookup) && Array.isArray(st.$lookup.pipeline)) {
      out.push({ $lookup: { ...st.$lookup, pipeline: rewritePipeline(st.$lookup.pipeline) } });
    } else if (isPlainObject(st.$unionWith) && Array.isArray(st.$unionWith.pipeline)) {
      out.push({ $unionWith: { ...st.$unionWith, pipeline: rewritePipeline(st.$unionWith.pipeline) } });
    } else out.push(st);
  }
  return out;
}

function checkCollation(c: unknown): void {
  if (c === undefined || c === null) return;
  if (isPlainObject(c) && (c.locale === 'simple' || Object.keys(c).length === 0)) return;
  throw err(115, 'collation is not supported by the embedded server (only the simple binary collation)');
}

const UNSUPPORTED_QUERY_OPS: Record<string, string> = {
  $where: '$where is not supported by the embedded server',
  $text: 'text search ($text) is not supported by the embedded server',
  $near: 'geospatial queries are not supported by the embedded server',
  $nearSphere: 'geospatial queries are not supported by the embedded server',
  $geoWithin: 'geospatial queries are not supported by the embedded server',
  $geoIntersects: 'geospatial queries are not supported by the embedded server',
  $function: '$function is not supported by the embedded server',
  $accumulator: '$accumulator is not supported by the embedded server',
};

/**
 * Whether an index lookup answered every field of `filter` exactly: each is one of the index's
 * equality fields with a simple equality (`simple`: the whole filter is), or the range it scanned.
 */
function answeredByIndex(filter: Doc, simple: boolean, covers: readonly string[], rangeField?: string): boolean {
  return Object.keys(filter).every((k) => k === rangeField || (covers.includes(k) && (simple || simpleMatcher({ [k]: filter[k] }) !== null)));
}

/** One filter for several: their fields side by side when no field repeats, else `$and` of them. */
function coalesce(filters: Doc[]): Doc {
  const out: Doc = {};
  for (const f of filters) {
    for (const k of Object.keys(f)) {
      if (k in out) return { $and: filters };
      out[k] = f[k];
    }
  }
  return out;
}

function checkFilter(v: unknown, depth = 0): void {
  if (depth > 50 || v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    for (const x of v) checkFilter(x, depth + 1);
    return;
  }
  if (!isPlainObject(v)) return;
  for (const k of Object.keys(v)) {
    if (k.charCodeAt(0) === 36 && UNSUPPORTED_QUERY_OPS[k]) throw err(115, UNSUPPORTED_QUERY_OPS[k]);
    const x = v[k];
    if (x !== null && typeof x === 'object') checkFilter(x, depth + 1);
  }
}

/** `{$group: {_id: <constant>, <field>: {$sum: 1}}}`: the field's name; anything else: null. */
function countField(stage: Doc): string | null {
  if (!isPlainObject(stage) || Object.keys(stage).length !== 1 || !isPlainObject(stage.$group)) return null;
  const keys = Object.keys(stage.$group);
  if (keys.length !== 2 || !('_id' in stage.$group)) return null;
  const id = stage.$group._id;
  if (!(typeof id === 'number' || id === null || (typeof id === 'string' && !id.startsWith('$')))) return null;
  const field = keys[0] === '_id' ? keys[1] : keys[0];
  const acc = stage.$group[field];
  return isPlainObject(acc) && Object.keys(acc).length === 1 && acc.$sum === 1 ? field : null;
}

function idFirst(d: Doc): Doc {
  if (d._id === undefined) return d;
  for (const k in d) {
    if (k === '_id') return d;
    break;
  }
  const { _id, ...rest } = d;
  return { _id, ...rest };
}

function checkPipeline(pipeline: unknown[]): boolean {
  let needsClone = false;
  for (const st of pipeline) {
    if (!isPlainObject(st) || Object.keys(st).length !== 1) throw err(40323, 'A pipeline stage specification object must contain exactly one field.');
    const op = Object.keys(st)[0];
    if (KNOWN_UNSUPPORTED_STAGES.has(op)) throw err(115, `${op} is not supported by the embedded server`);
    if (!SUPPORTED_STAGES.has(op)) throw err(40324, `Unrecognized pipeline stage name: '${op}'`);
    if (!SAFE_STAGES.has(op)) needsClone = true;
    if (op === '$facet' && isPlainObject(st.$facet)) for (const sub of Object.values(st.$facet)) if (Array.isArray(sub) && checkPipeline(sub)) needsClone = true;
    if (op === '$lookup' && Array.isArray((st.$lookup as Doc)?.pipeline) && checkPipeline((st.$lookup as Doc).pipeline)) needsClone = true;
  }
  return needsClone;
}

type UpdateKind = 'operators' | 'replacement' | 'pipeline';

function updateKind(u: unknown): UpdateKind {
  if (Array.isArray(u)) return 'pipeline';
  if (!isPlainObject(u)) throw err(14, 'Update argument must be either an object or an array');
  const keys = Object.keys(u);
  const ops = keys.filter((k) => k.startsWith('$'));
  if (ops.length === 0) return 'replacement';
  if (ops.length !== keys.length) throw err(9, `Unknown modifier: ${keys.find((k) => !k.startsWith('$'))}. Expected a valid update modifier or pipeline-style update specified as an array`);
  for (const op of ops) {
    if (!UPDATE_OPS.has(op)) throw err(9, `Unknown modifier: ${op}. Expected a valid update modifier or pipeline-style update specified as an array`);
    if (!isPlainObject(u[op])) throw err(9, `Modifiers operate on fields but we found type ${typeof u[op]} instead. For example: {$mod: {<field>: ...}} not {${op}: ${JSON.stringify(u[op])}}`);
  }
  return 'operators';
}

const UPDATE_OPS = new Set(['$set', '$unset', '$inc', '$mul', '$min', '$max', '$rename', '$push', '$pull', '$pullAll', '$addToSet', '$pop', '$currentDate', '$bit', '$setOnInsert']);

/** Returns the updated copy of `doc`, or null when the update changes nothing. */
function applyUpdate(doc: Doc, u: any, kind: UpdateKind, arrayFilters: Doc[] | undefined, query: Doc | undefined, isInsert: boolean): Doc | null {
  let nd: Doc;
  if (kind === 'pipeline') {
    checkPipeline(u);
    nd = runAggregator(rewritePipeline(u), [clone(doc)])[0];
  } else if (kind === 'replacement') {
    if (u._id !== undefined && keyOf(u._id) !== keyOf(doc._id)) throw immutableId();
    const { _id: _ignored, ...rest } = u;
    nd = { _id: doc._id, ...clone(rest) };
  } else {
    const mod: Doc = { ...u };
    if (mod.$setOnInsert) {
      if (isInsert) mod.$set = { ...(mod.$set ?? {}), ...mod.$setOnInsert };
      delete mod.$setOnInsert;
    }
    for (const k of Object.keys(mod)) if (Object.keys(mod[k]).length === 0) delete mod[k];
    const fast = arrayFilters?.length ? null : fastUpdate(doc, mod);
    if (fast) {
      if (!isInsert && keyOf(fast.doc._id) !== keyOf(doc._id)) throw immutableId();
      return fast.changed || isInsert ? fast.doc : null;
    }
    nd = clone(doc);
    if (Object.keys(mod).length) {
      try {
        mingoUpdate(nd, mod as never, arrayFilters, isInsert ? undefined : (query as never), { cloneMode: 'copy' });
      } catch (e) {
        throw err(2, (e as Error).message);
      }
    }
  }
  if (!isInsert && keyOf(nd._id) !== keyOf(doc._id)) throw immutableId();
  if (!isInsert && keyOf(nd) === keyOf(doc)) return null;
  return nd;
}

const FAST_OPS = new Set(['$set', '$unset', '$inc', '$mul', '$min', '$max', '$currentDate', '$push', '$addToSet']);

function hasOperatorKeys(v: unknown): boolean {
  return isPlainObject(v) && Object.keys(v).some((k) => k.startsWith('$'));
}

function comparable(a: unknown, b: unknown): boolean {
  return (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string') || (a instanceof Date && b instanceof Date);
}

/** What a step of fastUpdate answers when the update is not one of its cases: mingo handles it. */
const NOT_FAST = Symbol('not a fast update');
type Fast<T> = T | typeof NOT_FAST;

/**
 * Copy-on-write update for the common cases (plain dotted paths through objects, no positional
 * operators or array traversal, no modifiers). Returns null when mingo must handle the update.
 * Untouched subtrees are shared with the old version: stored documents are never mutated.
 */
function fastUpdate(doc: Doc, mod: Doc): { doc: Doc; changed: boolean } | null {
  if (!hasFastPaths(mod)) return null;
  const root: Doc = { ...doc };
  let changed = false;
  for (const op of Object.keys(mod)) {
    for (const [p, arg] of Object.entries(mod[op] as Doc)) {
      const parts = p.split('.');
      const parent = copyPathTo(root, parts, op);
      if (parent === NOT_FAST) return null;
      if (parent === null) continue;
      const applied = applyFastOp(op, parent, parts[parts.length - 1], arg, p, doc);
      if (applied === NOT_FAST) return null;
      if (applied) changed = true;
    }
  }
  return { doc: root, changed };
}

/** Whether every operator of `mod` is a fast one and its paths are plain, distinct and none inside another. */
function hasFastPaths(mod: Doc): boolean {
  const paths: string[] = [];
  for (const op of Object.keys(mod)) {
    if (!FAST_OPS.has(op)) return false;
    for (const p of Object.keys(mod[op])) {
      if (p.includes('$') || /(^|\.)\d+(\.|$)/.test(p) || p === '' || p.startsWith('.') || p.endsWith('.') || p.includes('..')) return false;
      paths.push(p);
    }
  }
  if (paths.length > 1) {
    const sorted = [...paths].sort();
    for (let i = 0; i + 1 < sorted.length; i++) if (sorted[i + 1] === sorted[i] || sorted[i + 1].startsWith(sorted[i] + '.')) return false;
  }
  return true;
}

/**
 * The object that holds the path's last part in `root`, every object on the way there copied into
 * `root` (and created where missing); null when `$unset` finds the way missing (nothing to do).
 */
function copyPathTo(root: Doc, parts: string[], op: string): Fast<Doc | null> {
  let parent: Doc = root;
  for (let i = 0; i < parts.length - 1; i++) {
    const cur: unknown = parent[parts[i]];
    if (cur === undefined) {
      if (op === '$unset') return null;
      const created: Doc = {};
      parent[parts[i]] = created;
      parent = created;
      continue;
    }
    if (!isPlainObject(cur)) {
      if (Array.isArray(cur) || (cur !== null && typeof cur === 'object') || op === '$unset') return NOT_FAST;
      throw err(28, `Cannot create field '${parts[i + 1]}' in element {${parts[i]}: ${JSON.stringify(cur)}}`);
    }
    const copy: Doc = { ...cur };
    parent[parts[i]] = copy;
    parent = copy;
  }
  return parent;
}

const hasOwn = (o: Doc, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Applies `op` to the field `k` of `parent` (the copy); whether that changed it. `p` and `doc` are for the errors. */
function applyFastOp(op: string, parent: Doc, k: string, arg: unknown, p: string, doc: Doc): Fast<boolean> {
  switch (op) {
    case '$set':
      if (hasOwn(parent, k) && keyOf(parent[k]) === keyOf(arg)) return false;
      parent[k] = arg;
      return true;
    case '$unset':
      if (!hasOwn(parent, k)) return false;
      delete parent[k];
      return true;
    case '$inc':
    case '$mul':
      return applyFastArithmetic(op, parent, k, arg, p, doc);
    case '$min':
    case '$max': {
      if (!hasOwn(parent, k)) {
        parent[k] = arg;
        return true;
      }
      const old = parent[k];
      if (!comparable(old, arg)) return NOT_FAST;
      const better = op === '$min' ? (arg as number) < (old as number) : (arg as number) > (old as number);
      if (better) parent[k] = arg;
      return better;
    }
    case '$currentDate':
      if (arg !== true && !(isPlainObject(arg) && arg.$type === 'date')) return NOT_FAST;
      parent[k] = new Date();
      return true;
    case '$push':
    case '$addToSet':
      return applyFastAppend(op, parent, k, arg, p, doc);
    default:
      return NOT_FAST;
  }
}

/** `$inc` or `$mul` on the field `k` of `parent`; whether that changed it. */
function applyFastArithmetic(op: '$inc' | '$mul', parent: Doc, k: string, arg: unknown, p: string, doc: Doc): Fast<boolean> {
  if (typeof arg !== 'number') {
    if (arg !== null && typeof arg === 'object') return NOT_FAST;
    throw err(14, `Cannot ${op === '$inc' ? 'increment' : 'multiply'} with non-numeric argument: {${p}: ${JSON.stringify(arg)}}`);
  }
  if (!hasOwn(parent, k)) {
    parent[k] = op === '$inc' ? arg : 0;
    return true;
  }
  const old = parent[k];
  if (typeof old === 'number') {
    const v = op === '$inc' ? old + arg : old * arg;
    if (v === old) return false;
    parent[k] = v;
    return true;
  }
  if (old !== null && typeof old === 'object' && !Array.isArray(old) && !isPlainObject(old) && !(old instanceof Date)) return NOT_FAST;
  throw err(14, `Cannot apply ${op} to a value of non-numeric type. {_id: ${JSON.stringify(doc._id)}} has the field '${k}' of non-numeric type ${bsonTypeName(old)}`);
}

/** `$push` or `$addToSet` of one value to the array `k` of `parent` (a new array); whether that changed it. */
function applyFastAppend(op: '$push' | '$addToSet', parent: Doc, k: string, arg: unknown, p: string, doc: Doc): Fast<boolean> {
  if (hasOperatorKeys(arg)) return NOT_FAST;
  if (!hasOwn(parent, k)) {
    parent[k] = [arg];
    return true;
  }
  const old = parent[k];
  if (Array.isArray(old)) {
    if (op === '$addToSet') {
      const key = keyOf(arg);
      if (old.some((x) => keyOf(x) === key)) return false;
    }
    parent[k] = [...old, arg];
    return true;
  }
  if (old !== null && typeof old === 'object' && !isPlainObject(old) && !(old instanceof Date)) return NOT_FAST;
  throw err(2, `The field '${p}' must be an array but is of type ${bsonTypeName(old)} in document {_id: ${JSON.stringify(doc._id)}}`);
}

function bsonTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'double';
  if (Array.isArray(v)) return 'array';
  if (v instanceof Date) return 'date';
  if (v instanceof RegExp) return 'regex';
  const t = (v as { _bsontype?: string })._bsontype;
  return t ? t.toLowerCase() : 'object';
}

function immutableId(): MongoCommandError {
  return err(66, "Performing an update on the path '_id' would modify the immutable field '_id'");
}

function buildUpsert(q: Doc, u: any, kind: UpdateKind, arrayFilters: Doc[] | undefined): Doc {
  const base: Doc = {};
  const collect = (f: Doc) => {
    for (const k of Object.keys(f)) {
      const v = f[k];
      if (k === '$and' && Array.isArray(v)) {
        for (const s of v) if (isPlainObject(s)) collect(s);
        continue;
      }
      if (k.startsWith('$')) continue;
      if (isPlainObject(v) && Object.keys(v).some((x) => x.startsWith('$'))) {
        if ('$eq' in v) setPath(base, k, clone(v.$eq));
        continue;
      }
      setPath(base, k, clone(v));
    }
  };
  let doc: Doc;
  if (kind === 'replacement') {
    collect(q);
    doc = clone(u);
    if (doc._id === undefined && base._id !== undefined) doc = { _id: base._id, ...doc };
  } else {
    collect(q);
    doc = applyUpdate(base, u, kind, arrayFilters, undefined, true) ?? base;
  }
  if (doc._id === undefined) doc = { _id: new ObjectId(), ...doc };
  else if (Object.keys(doc)[0] !== '_id') {
    const { _id, ...rest } = doc;
    doc = { _id, ...rest };
  }
  return doc;
}

function validateDoc(doc: Doc): void {
  const id = doc._id;
  if (Array.isArray(id)) throw err(2, 'can\'t use an array for _id');
  if (id instanceof RegExp) throw err(2, 'can\'t use a regex for _id');
  for (const k of Object.keys(doc)) if (k.startsWith('$')) throw err(2, `Document can't have $ prefixed field names: ${k}`);
}

function normalizeIndexSpec(raw: unknown): IndexSpec {
  if (!isPlainObject(raw)) throw err(2, 'index specification must be an object');
  const key = raw.key;
  if (!isPlainObject(key) || Object.keys(key).length === 0) throw err(67, 'Index keys cannot be empty.');
  for (const [f, v] of Object.entries(key)) {
    if (v === 'text' || v === '2d' || v === '2dsphere' || v === 'geoHaystack' || v === 'wildcard' || f.includes('$**'))
      throw err(67, `${v === 'text' ? 'text' : String(v)} indexes are not supported by the embedded server`);
    if (typeof v !== 'number' && v !== 'hashed') throw err(67, `Values in the index key pattern can only be numbers or strings, found ${JSON.stringify(v)}`);
  }
  if (typeof raw.name !== 'string' || !raw.name) throw err(9, "The 'name' field is a required property of an index specification");
  const spec: IndexSpec = { v: 2, key, name: raw.name };
  if (raw.unique) spec.unique = true;
  if (raw.sparse) spec.sparse = true;
  if (isPlainObject(raw.partialFilterExpression)) spec.partialFilterExpression = raw.partialFilterExpression;
  if (raw.expireAfterSeconds !== undefined) {
    const e = Number(raw.expireAfterSeconds);
    if (!Number.isFinite(e) || e < 0) throw err(67, 'TTL index \'expireAfterSeconds\' option must be numeric and non-negative');
    spec.expireAfterSeconds = e;
  }
  for (const k of ['collation', 'weights', 'default_language', 'textIndexVersion']) {
    if (raw[k] !== undefined) throw err(67, `index option '${k}' is not supported by the embedded server`);
  }
  if (raw.hidden !== undefined) spec.hidden = !!raw.hidden;
  return spec;
}

function optionsKey(s: IndexSpec): string {
  return keyOf({ u: !!s.unique, s: !!s.sparse, p: s.partialFilterExpression ?? null, e: s.expireAfterSeconds ?? null });
}
