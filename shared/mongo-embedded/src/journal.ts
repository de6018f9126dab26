/**
 * Durability: an append-only journal of committed changes plus a snapshot, both made of frames
 * `[u32 payload length][u32 crc32(payload)][BSON payload]`.
 *
 * - Every change is appended to an in-memory buffer; `flush()` writes and fdatasyncs everything
 *   buffered so far in one batch (group commit). Commands reply only after their flush resolved.
 * - Start-up loads `snapshot-<gen>.bson`, replays `journal-<gen>.log` and truncates a torn last frame.
 * - Compaction writes the whole live state to `snapshot-<gen+1>.bson.tmp` and fsyncs it, writes the
 *   changes made since that state to a new `journal-<gen+1>.log` (as they are flushed) and fsyncs it,
 *   renames the snapshot into place (atomic: from then on start-up reads generation gen+1) and
 *   deletes the old generation.
 *   It runs once the journal is larger than max(journalCompactMinBytes, 2 x snapshot size), so files
 *   stay proportional to the live data.
 * - The snapshot is written alongside the journal, not in its way: its documents are taken at one
 *   instant (by reference: the store never changes a stored document, an update stores a new one),
 *   then serialised and written a batch at a time while commands, and their journal flushes to the
 *   old generation, go on; the changes made meanwhile go to the new journal too, flush by flush, so
 *   the switch writes only the last few.
 *   Before, the whole state was serialised in one synchronous step and every write waited for the
 *   compaction: with tens of MiB of data, a stall of every request of the process (docs/adr/0053).
 */
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { deserialize, serialize } from 'bson';
import { crc32c } from './crc32c';
import { Engine, Index, IndexSpec, JournalOp, splitNs } from './storage';
import { Doc } from './values';

const crc: (b: Uint8Array) => number = typeof zlib.crc32 === 'function' ? (b) => zlib.crc32(b) >>> 0 : crc32c;
const DESER = { promoteLongs: true, promoteValues: true, promoteBuffers: false, bsonRegExp: false } as const;

export interface JournalOptions {
  compactMinBytes?: number;
  logger?: (msg: string) => void;
}

function frame(payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(8 + payload.length);
  out.writeUInt32LE(payload.length, 0);
  out.writeUInt32LE(crc(payload), 4);
  out.set(payload, 8);
  return out;
}

/** Reads frames; returns the payloads and the offset after the last intact frame. */
function readFrames(buf: Buffer): { docs: Doc[]; good: number } {
  const docs: Doc[] = [];
  let pos = 0;
  while (pos + 8 <= buf.length) {
    const len = buf.readUInt32LE(pos);
    const sum = buf.readUInt32LE(pos + 4);
    if (pos + 8 + len > buf.length) break;
    const payload = buf.subarray(pos + 8, pos + 8 + len);
    if (crc(payload) !== sum) break;
    try {
      docs.push(deserialize(payload, DESER));
    } catch {
      break;
    }
    pos += 8 + len;
  }
  return { docs, good: pos };
}

export class Journal {
  private pending: Buffer[] = [];
  private appendedSeq = 0;
  private flushedSeq = 0;
  private waiters: { seq: number; resolve: () => void; reject: (e: Error) => void }[] = [];
  private running = false;
  private forceCompact: (() => void)[] = [];
  /**
   * While a snapshot is being written: the frames appended since its instant not yet written to the
   * next generation's journal (`next`), which starts with all of them.
   */
  private tail: Buffer[] | null = null;
  /** While a snapshot is being written: the next generation's journal, written as the current one is (opened with the first flush). */
  private next: { fh: fsp.FileHandle; path: string } | null = null;
  /** Why the next journal could not be written (the compaction is abandoned when its snapshot is done). */
  private nextFailed: Error | null = null;
  /** The snapshot being written, if any. */
  private snapshotting: Promise<void> | null = null;
  /** A snapshot written and fsynced, waiting for the loop to switch generations. */
  private snapshotDone: { tmp: string; size: number; next: number; callbacks: (() => void)[] } | null = null;
  private journalBytes = 0;
  private snapshotBytes = 0;
  private closed = false;
  private closing: Promise<void> | null = null;
  private readonly compactMin: number;

  private constructor(
    private readonly dir: string,
    private readonly engine: Engine,
    private gen: number,
    private fh: fsp.FileHandle,
    opts: JournalOptions,
    private readonly log?: (msg: string) => void,
  ) {
    this.compactMin = opts.compactMinBytes ?? 8 * 1024 * 1024;
  }

  static async open(dir: string, engine: Engine, opts: JournalOptions = {}): Promise<Journal> {
    await fsp.mkdir(dir, { recursive: true });
    takeLock(dir);
    let fh: fsp.FileHandle | null = null;
    try {
      const names = await fsp.readdir(dir);
      let gen = 0;
      for (const n of names) {
        const m = /^snapshot-(\d+)\.bson$/.exec(n);
        if (m) gen = Math.max(gen, Number(m[1]));
      }
      let snapshotBytes = 0;
      const snapPath = path.join(dir, `snapshot-${gen}.bson`);
      if (fs.existsSync(snapPath)) {
        const buf = await fsp.readFile(snapPath);
        snapshotBytes = buf.length;
        const { docs } = readFrames(buf);
        for (const f of docs) loadSnapshotFrame(engine, f);
      }
      const jPath = path.join(dir, `journal-${gen}.log`);
      let journalBytes = 0;
      let replayed = 0;
      if (fs.existsSync(jPath)) {
        const buf = await fsp.readFile(jPath);
        const { docs, good } = readFrames(buf);
        for (const op of docs) engine.apply(op as JournalOp);
        replayed = docs.length;
        if (good < buf.length) {
          opts.logger?.(`journal: discarding a torn tail of ${buf.length - good} bytes`);
          await fsp.truncate(jPath, good);
        }
        journalBytes = good;
      }
      for (const n of names) {
        const m = /^(snapshot|journal)-(\d+)\.(bson|log)(\.tmp)?$/.exec(n);
        if (m && (Number(m[2]) !== gen || m[4])) await fsp.rm(path.join(dir, n), { force: true });
      }
      fh = await fsp.open(jPath, 'a');
      await syncDir(dir);
      const j = new Journal(dir, engine, gen, fh, opts, opts.logger);
      j.journalBytes = journalBytes;
      j.snapshotBytes = snapshotBytes;
      opts.logger?.(`journal: loaded generation ${gen} (${snapshotBytes} snapshot bytes, ${replayed} journal records)`);
      engine.onWriteSink = (op) => j.append(op);
      return j;
    } catch (e) {
      // A failed open leaves the folder as free as it found it.
      await fh?.close().catch(() => undefined);
      releaseLock(dir);
      throw e;
    }
  }

  sizes(): { journalBytes: number; snapshotBytes: number } {
    return { journalBytes: this.journalBytes + this.pending.reduce((a, b) => a + b.length, 0), snapshotBytes: this.snapshotBytes };
  }

  append(op: JournalOp): void {
    if (this.closed) throw new Error('journal is closed');
    const f = frame(serialize(op));
    this.pending.push(f);
    this.tail?.push(f);
    this.appendedSeq++;
  }

  /** Resolves once every change appended so far is on disk. */
  flush(): Promise<void> {
    if (this.flushedSeq >= this.appendedSeq) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ seq: this.appendedSeq, resolve, reject });
      this.kick();
    });
  }

  compactNow(): Promise<void> {
    return new Promise((resolve) => {
      this.forceCompact.push(resolve);
      this.kick();
    });
  }

  private kick(): void {
    if (this.running) return;
    this.running = true;
    this.loop()
      .catch((e) => {
        this.log?.(`journal write failed: ${(e as Error).message}`);
        const ws = this.waiters;
        this.waiters = [];
        for (const w of ws) w.reject(e as Error);
      })
      .finally(() => {
        this.running = false;
        if (this.pending.length || this.snapshotDone || (this.forceCompact.length && !this.snapshotting)) this.kick();
      });
  }

  private async loop(): Promise<void> {
    while (this.pending.length || this.snapshotDone || (this.forceCompact.length && !this.snapshotting)) {
      if (this.pending.length) {
        const bufs = this.pending;
        const seq = this.appendedSeq;
        this.pending = [];
        const data = bufs.length === 1 ? bufs[0] : Buffer.concat(bufs);
        // During a compaction the same frames also go to the next generation's journal, at the same
        // time: the switch then has only the last few to write (docs/adr/0053).
        const carrying = this.carryTail();
        try {
          await writeAll(this.fh, data);
          await this.fh.datasync();
        } catch (e) {
          this.pending = [...bufs, ...this.pending];
          await carrying;
          throw e;
        }
        await carrying;
        this.journalBytes += data.length;
        this.release(seq);
      }
      if (this.snapshotDone) await this.switchGeneration();
      // (Not while a failed compaction's next journal is still being removed: a new one starts from an empty file.)
      else if (!this.snapshotting && !this.next && (this.forceCompact.length || this.journalBytes > Math.max(this.compactMin, 2 * this.snapshotBytes))) this.startSnapshot();
    }
  }

  /**
   * Writes the frames appended since the snapshot's instant to the next generation's journal (opened
   * on first use) and fsyncs it. A failure abandons the compaction, never a write: the current
   * generation holds everything either way.
   */
  private async carryTail(): Promise<void> {
    if (!this.tail || !this.tail.length || this.nextFailed) return;
    try {
      const next = await this.openNext();
      if (!this.tail) {
        // The compaction failed while the file was being opened: it must not start a later one's journal.
        await this.dropNext();
        return;
      }
      const bufs = this.tail;
      this.tail = [];
      await writeAll(next.fh, bufs.length === 1 ? bufs[0] : Buffer.concat(bufs));
      await next.fh.datasync();
    } catch (e) {
      this.nextFailed = e as Error;
      this.tail = null;
    }
  }

  /** The next generation's journal, created on first use. */
  private async openNext(): Promise<{ fh: fsp.FileHandle; path: string }> {
    if (!this.next) {
      const p = path.join(this.dir, `journal-${this.gen + 1}.log`);
      this.next = { fh: await fsp.open(p, 'w'), path: p };
    }
    return this.next;
  }

  /** Closes and removes the next generation's journal of an abandoned compaction. */
  private async dropNext(): Promise<void> {
    const next = this.next;
    if (next) {
      await next.fh.close().catch(() => undefined);
      await fsp.rm(next.path, { force: true }).catch(() => undefined);
    }
    // Held until the file is gone, so no new compaction opens the same path meanwhile.
    if (this.next === next) this.next = null;
    this.nextFailed = null;
  }

  /**
   * Takes the live state at this instant and writes it as the next generation's snapshot in the
   * background; the loop switches generations once it is on disk (switchGeneration).
   */
  private startSnapshot(): void {
    const parts = snapshotParts(this.engine);
    this.tail = [];
    this.nextFailed = null;
    const callbacks = this.forceCompact;
    this.forceCompact = [];
    const next = this.gen + 1;
    this.snapshotting = writeSnapshot(this.dir, next, parts).then(
      ({ tmp, size }) => {
        this.snapshotting = null;
        if (this.closing) {
          void fsp.rm(tmp, { force: true }).catch(() => undefined);
          for (const cb of callbacks) cb();
          return;
        }
        this.snapshotDone = { tmp, size, next, callbacks };
        this.kick();
      },
      async (e: Error) => {
        // The journal goes on in this generation; the next flush past the threshold tries again.
        this.tail = null;
        await this.dropNext();
        this.snapshotting = null;
        this.log?.(`journal: compaction failed, the journal keeps growing: ${e.message}`);
        for (const cb of callbacks) cb();
      },
    );
  }

  /**
   * Makes the written snapshot the current generation: its journal (the changes made since the
   * snapshot's instant, written as they were flushed) completed and fsynced, then the snapshot renamed
   * into place. A crash before the rename leaves the old generation (its snapshot and journal hold
   * everything acknowledged); after it, the new one does. Only the frames appended since the last
   * flush are written here, so writes wait for a few small fsyncs, not for the whole tail.
   */
  private async switchGeneration(): Promise<void> {
    const { tmp, size, next, callbacks } = this.snapshotDone!;
    this.snapshotDone = null;
    if (this.nextFailed) {
      this.log?.(`journal: compaction abandoned, the next journal could not be written: ${this.nextFailed.message}`);
      this.tail = null;
      await this.dropNext();
      await fsp.rm(tmp, { force: true }).catch(() => undefined);
      for (const cb of callbacks) cb();
      return;
    }
    // Every frame still pending was appended after the snapshot's instant, so it is in the tail:
    // written once, to the new journal. (Those appended before it were flushed by an earlier turn of the loop.)
    const pendingNow = this.pending;
    this.pending = [];
    const seq = this.appendedSeq;
    let newFh: fsp.FileHandle;
    try {
      newFh = (await this.openNext()).fh;
      const rest = this.tail!;
      this.tail = null;
      if (rest.length) await writeAll(newFh, Buffer.concat(rest));
      await newFh.datasync();
      await fsp.rename(tmp, path.join(this.dir, `snapshot-${next}.bson`));
      await syncDir(this.dir);
      this.next = null;
    } catch (e) {
      this.tail = null;
      await this.dropNext();
      await fsp.rm(tmp, { force: true }).catch(() => undefined);
      this.pending = [...pendingNow, ...this.pending];
      for (const cb of callbacks) cb();
      throw e;
    }
    const oldFh = this.fh;
    const oldGen = this.gen;
    this.fh = newFh;
    this.gen = next;
    this.journalBytes = (await newFh.stat()).size;
    this.snapshotBytes = size;
    this.release(seq);
    await oldFh.close();
    await fsp.rm(path.join(this.dir, `journal-${oldGen}.log`), { force: true });
    await fsp.rm(path.join(this.dir, `snapshot-${oldGen}.bson`), { force: true });
    this.log?.(`journal: compacted into generation ${next} (${size} bytes)`);
    for (const cb of callbacks) cb();
  }

  private release(seq: number): void {
    this.flushedSeq = Math.max(this.flushedSeq, seq);
    const keep: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (w.seq <= this.flushedSeq) w.resolve();
      else keep.push(w);
    }
    this.waiters = keep;
  }

  /** Flushes what is buffered, then closes the file and releases the folder, even when the flush fails. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        await this.flush();
        // A snapshot being written is abandoned (its .tmp file is removed when it is done, or at the next start).
        await this.snapshotting;
        while (this.running) await new Promise((r) => setTimeout(r, 5));
      } finally {
        this.closed = true;
        this.engine.onWriteSink = null;
        // An unfinished compaction's next journal (its snapshot .tmp is removed when written, or at the next start).
        await this.dropNext();
        try {
          await this.fh.close();
        } finally {
          releaseLock(this.dir);
        }
      }
    })();
    return this.closing;
  }
}

async function writeAll(fh: fsp.FileHandle, data: Buffer): Promise<void> {
  let off = 0;
  while (off < data.length) {
    const { bytesWritten } = await fh.write(data, off, data.length - off);
    off += bytesWritten;
  }
}

async function syncDir(dir: string): Promise<void> {
  try {
    const d = await fsp.open(dir, 'r');
    try {
      await d.sync();
    } finally {
      await d.close();
    }
  } catch {
    // some platforms cannot fsync a directory
  }
}

/** One collection in a snapshot: its creation frame and its documents, as they were at the snapshot's instant. */
interface SnapshotPart {
  ns: string;
  created: Buffer;
  docs: Doc[];
}

/** The live state at this instant (synchronous): collections and references to their documents. */
function snapshotParts(engine: Engine): SnapshotPart[] {
  const parts: SnapshotPart[] = [];
  for (const db of engine.dbs.values()) {
    for (const c of db.collections.values()) {
      const created = frame(serialize({ o: 'cc', ns: c.ns, opts: c.options, idx: [...c.indexes.values()].map((i) => i.spec) }));
      parts.push({ ns: c.ns, created, docs: [...c.docs.values()] });
    }
  }
  return parts;
}

/** Documents per frame, and per write (each write's await lets commands run in between). */
const SNAPSHOT_BATCH = 256;

/** Writes `snapshot-<next>.bson.tmp` and fsyncs it; resolves with its path and size. */
async function writeSnapshot(dir: string, next: number, parts: SnapshotPart[]): Promise<{ tmp: string; size: number }> {
  const tmp = path.join(dir, `snapshot-${next}.bson.tmp`);
  let size = 0;
  try {
    const fh = await fsp.open(tmp, 'w');
    try {
      for (const part of parts) {
        await writeAll(fh, part.created);
        size += part.created.length;
        for (let i = 0; i < part.docs.length; i += SNAPSHOT_BATCH) {
          const f = frame(serialize({ o: 'ds', ns: part.ns, docs: part.docs.slice(i, i + SNAPSHOT_BATCH) }));
          await writeAll(fh, f);
          size += f.length;
        }
      }
      await fh.datasync();
    } finally {
      await fh.close();
    }
  } catch (e) {
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
    throw e;
  }
  return { tmp, size };
}

function loadSnapshotFrame(engine: Engine, f: Doc): void {
  const [db, name] = splitNs(f.ns);
  if (f.o === 'cc') {
    engine.apply({ o: 'cc', ns: f.ns, opts: f.opts ?? {} });
    const c = engine.getColl(db, name)!;
    for (const spec of (f.idx ?? []) as IndexSpec[]) c.addIndex(new Index(spec));
  } else if (f.o === 'ds') {
    const c = engine.getColl(db, name);
    if (c) for (const d of f.docs as Doc[]) c.putRaw(d);
  }
}

const openDirs = new Set<string>();

function takeLock(dir: string): void {
  const abs = path.resolve(dir);
  if (openDirs.has(abs)) throw new Error(`data folder ${dir} is already open in this process`);
  const lock = path.join(dir, 'mongod.lock');
  try {
    const pid = Number(fs.readFileSync(lock, 'utf8').trim());
    if (pid && pid !== process.pid && isAlive(pid)) throw new Error(`data folder ${dir} is in use by process ${pid}`);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  fs.writeFileSync(lock, String(process.pid));
  openDirs.add(abs);
}

function releaseLock(dir: string): void {
  openDirs.delete(path.resolve(dir));
  try {
    fs.rmSync(path.join(dir, 'mongod.lock'), { force: true });
  } catch {
    // ignore
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
