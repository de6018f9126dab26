/**
 * Durability of the embedded server (not a conformance test: it needs the data folder).
 * A server in a child process is killed with SIGKILL after acknowledged writes, then restarted on
 * the same folder; the journal stays bounded by compaction and tolerates a torn last frame.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEmbeddedMongo } from '../src';

const CLI = path.join(__dirname, '..', 'src', 'cli.ts');
const dirs: string[] = [];

function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'mongo-embedded-'));
  dirs.push(d);
  return d;
}

/** Closed after each test, also when it failed half-way (an open server would keep jest running). */
const opened: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of opened.splice(0)) await close().catch(() => undefined);
});

afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function startChild(dataDir: string): Promise<{ child: ChildProcess; uri: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--port', '0', '--data', dataDir, '--quiet'], {
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: path.join(__dirname, '..'),
    });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += String(d);
      const line = out.split('\n').find((l) => l.startsWith('mongodb://'));
      if (line) resolve({ child, uri: line.trim() });
    });
    child.on('exit', (code) => reject(new Error(`child exited with ${code} before printing its URL: ${out}`)));
    setTimeout(() => reject(new Error('child did not start in time')), 20_000).unref();
  });
}

function killed(child: ChildProcess): Promise<void> {
  return new Promise((r) => {
    if (child.exitCode !== null || child.signalCode !== null) return r();
    child.once('exit', () => r());
  });
}

/** Starts a server on `dir` again (after a kill), runs `check` with a client to it, then stops it. */
async function afterRestart(dir: string, check: (client: MongoClient) => Promise<void>): Promise<void> {
  const second = await startChild(dir);
  const client = await MongoClient.connect(second.uri);
  try {
    await check(client);
  } finally {
    await client.close();
    second.child.kill('SIGTERM');
    await killed(second.child);
  }
}

describe('durability', () => {
  it('loses no acknowledged write when the process is killed with SIGKILL', async () => {
    const dir = tmpDir();
    const first = await startChild(dir);
    const c1 = await MongoClient.connect(first.uri);
    const db = c1.db('durable');
    await db.collection('users').createIndex({ email: 1 }, { unique: true });
    for (let i = 0; i < 100; i++) await db.collection('users').insertOne({ _id: i as any, email: `u${i}@x`, n: 0 });
    await Promise.all(Array.from({ length: 50 }, (_, i) => db.collection('users').updateOne({ _id: i as any }, { $inc: { n: i } })));
    await db.collection('users').deleteMany({ _id: { $gte: 90 } as any });
    const s = c1.startSession();
    await s.withTransaction(async (session) => {
      await db.collection('orders').insertOne({ _id: 'o1' as any, user: 1 }, { session });
      await db.collection('outbox').insertOne({ _id: 'e1' as any, order: 'o1' }, { session });
    });
    await s.endSession();
    // An uncommitted transaction must not survive the crash.
    const open = c1.startSession();
    open.startTransaction();
    await db.collection('orders').insertOne({ _id: 'ghost' as any }, { session: open });
    first.child.kill('SIGKILL');
    await killed(first.child);
    await c1.close().catch(() => undefined);

    await afterRestart(dir, async (c2) => {
        const db2 = c2.db('durable');
        expect(await db2.collection('users').countDocuments()).toBe(90);
        const docs = await db2.collection('users').find({ _id: { $lt: 50 } as any }).sort({ _id: 1 }).toArray();
        expect(docs.map((d) => d.n)).toEqual(Array.from({ length: 50 }, (_, i) => i));
        expect(await db2.collection('orders').find().toArray()).toEqual([{ _id: 'o1', user: 1 }]);
        expect(await db2.collection('outbox').countDocuments()).toBe(1);
        const dup = await db2
          .collection('users')
          .insertOne({ email: 'u1@x' })
          .catch((e) => e);
        expect(dup.code).toBe(11000);
    });
  }, 40_000);

  it('compacts the journal so its size stays proportional to the live data, and restarts from it', async () => {
    const dir = tmpDir();
    const m = await startEmbeddedMongo({ dataDir: dir, journalCompactMinBytes: 64 * 1024 });
    const client = await MongoClient.connect(m.uri());
    const c = client.db('compact').collection('docs');
    await c.insertMany(Array.from({ length: 10 }, (_, i) => ({ _id: i as any, v: 0, pad: 'x'.repeat(1000) })));
    const payload = 'y'.repeat(8000);
    let written = 0;
    await Promise.all(
      Array.from({ length: 10 }, async (_, k) => {
        for (let r = 0; r < 40; r++) {
          await c.updateOne({ _id: k as any }, { $set: { pad: payload + r, v: r } });
          written += payload.length;
        }
      }),
    );
    expect(written).toBeGreaterThan(3_000_000);
    const sizes = m.storageSize();
    const onDisk = fs.readdirSync(dir).reduce((a, f) => a + fs.statSync(path.join(dir, f)).size, 0);
    // Live data is ~80 KB; without compaction the journal would hold > 3 MB. (A compaction may be
    // under way: the old generation, its journal past the threshold and the new snapshot are on disk.)
    expect(sizes.snapshotBytes).toBeGreaterThan(0);
    expect(onDisk).toBeLessThan(800_000);
    await client.close();
    await m.close();

    const again = await startEmbeddedMongo({ dataDir: dir });
    const c2 = await MongoClient.connect(again.uri());
    try {
      const docs = await c2.db('compact').collection('docs').find().sort({ _id: 1 }).toArray();
      expect(docs).toHaveLength(10);
      expect(docs.every((d) => d.v === 39 && d.pad === payload + 39)).toBe(true);
    } finally {
      await c2.close();
      await again.close();
    }
  }, 40_000);

  it('loses no acknowledged write when the process is killed while compactions run', async () => {
    const dir = tmpDir();
    const first = await startChild(dir);
    const c1 = await MongoClient.connect(first.uri);
    const docs = c1.db('churn').collection('docs');
    // 20 documents of 300 KB rewritten over and over: the journal passes its threshold every few
    // dozen writes, so the kill lands during or between compactions (snapshot written, switch, ...).
    const pad = 'q'.repeat(300_000);
    await docs.insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: i as any, v: 0, pad })));
    const acknowledged = new Array<number>(20).fill(0);
    let stop = false;
    const writers = Array.from({ length: 20 }, async (_, i) => {
      for (let v = 1; !stop; v++) {
        try {
          await docs.updateOne({ _id: i as any }, { $set: { v, pad: pad + v } });
          acknowledged[i] = v;
        } catch {
          return; // the kill
        }
      }
    });
    // Every writer acknowledged once (a loaded machine may take seconds), then the kill at a random moment.
    for (const until = Date.now() + 20_000; Math.min(...acknowledged) === 0 && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300 + Math.floor(Math.random() * 700)));
    first.child.kill('SIGKILL');
    await killed(first.child);
    stop = true;
    // Closing the client fails the writes still waiting for the dead server at once (not after server selection's 30 s).
    await c1.close(true).catch(() => undefined);
    await Promise.all(writers);
    expect(Math.min(...acknowledged)).toBeGreaterThan(0);

    await afterRestart(dir, async (c2) => {
        const after = await c2.db('churn').collection('docs').find({}, { projection: { v: 1, pad: 1 } }).sort({ _id: 1 }).toArray();
        expect(after).toHaveLength(20);
        after.forEach((d, i) => {
          // At least what was acknowledged; one more when the write was applied but its reply lost in the kill.
          expect(d.v).toBeGreaterThanOrEqual(acknowledged[i]!);
          expect(d.v).toBeLessThanOrEqual(acknowledged[i]! + 1);
          expect(d.pad).toBe(pad + d.v);
        });
    });
  }, 60_000);

  it('keeps acknowledging writes while a compaction writes its snapshot, and keeps them across a restart', async () => {
    const dir = tmpDir();
    const m = await startEmbeddedMongo({ dataDir: dir });
    const client = await MongoClient.connect(m.uri());
    opened.push(() => client.close(), () => m.close());
    const c = client.db('big').collection('docs');
    // ~24 MB of live data: its snapshot takes many batches to write.
    const pad = 'p'.repeat(800);
    for (let i = 0; i < 30_000; i += 5_000) await c.insertMany(Array.from({ length: 5_000 }, (_, k) => ({ _id: (i + k) as any, v: 0, pad })));
    let compacted = false;
    const compaction = m.compact().then(() => (compacted = true));
    // Writes during the compaction: acknowledged before it ends (they do not wait for the snapshot).
    const duringCompaction: boolean[] = [];
    /** Rounds that found a snapshot being written and its generation's journal already holding changes. */
    let carriedEarly = 0;
    const nextJournalWritten = () =>
      fs.readdirSync(dir).some((f) => {
        const next = /^snapshot-(\d+)\.bson\.tmp$/.exec(f)?.[1];
        const journal = path.join(dir, `journal-${next}.log`);
        return next !== undefined && fs.existsSync(journal) && fs.statSync(journal).size > 0;
      });
    for (let k = 0; k < 20; k++) {
      await c.updateOne({ _id: k as any }, { $set: { v: 1 } });
      await c.insertOne({ _id: `during-${k}` as any, v: 2 });
      await c.deleteOne({ _id: (29_999 - k) as any });
      duringCompaction.push(!compacted);
      if (nextJournalWritten()) carriedEarly++;
    }
    await compaction;
    // Several rounds while it ran (a compaction in the writes' way would let at most the first one straddle it).
    expect(duringCompaction.filter(Boolean).length).toBeGreaterThanOrEqual(5);
    // Their changes went to the next generation's journal as they were flushed, not all at the switch.
    expect(carriedEarly).toBeGreaterThanOrEqual(3);
    // And after it: in the new generation's journal.
    await c.insertOne({ _id: 'after' as any, v: 3 });
    // One generation on disk: the old one was removed after the switch.
    const files = fs.readdirSync(dir).filter((f) => /^(snapshot|journal)-/.test(f)).sort();
    const gen = /^journal-(\d+)\.log$/.exec(files[0] ?? '')?.[1];
    expect(files).toEqual([`journal-${gen}.log`, `snapshot-${gen}.bson`]);
    await client.close();
    await m.close();

    const again = await startEmbeddedMongo({ dataDir: dir });
    const c2 = await MongoClient.connect(again.uri());
    try {
      const docs = c2.db('big').collection('docs');
      expect(await docs.countDocuments()).toBe(30_000 - 20 + 20 + 1);
      expect(await docs.countDocuments({ v: 1 })).toBe(20);
      expect(await docs.countDocuments({ v: 2 })).toBe(20);
      expect(await docs.findOne({ _id: 29_999 as any })).toBeNull();
      expect(await docs.findOne({ _id: 'after' as any })).toMatchObject({ v: 3 });
    } finally {
      await c2.close();
      await again.close();
    }
  }, 60_000);

  it('refuses a data folder that is already in use', async () => {
    const dir = tmpDir();
    const m = await startEmbeddedMongo({ dataDir: dir });
    await expect(startEmbeddedMongo({ dataDir: dir })).rejects.toThrow(/already open|in use/);
    await m.close();
    const again = await startEmbeddedMongo({ dataDir: dir });
    await again.close();
  });

  it('tolerates a torn last journal frame', async () => {
    const dir = tmpDir();
    const m = await startEmbeddedMongo({ dataDir: dir });
    const client = await MongoClient.connect(m.uri());
    await client.db('torn').collection('t').insertMany([{ _id: 1 as any }, { _id: 2 as any }]);
    await client.close();
    await m.close();
    const journal = fs.readdirSync(dir).find((f) => f.startsWith('journal-'))!;
    fs.appendFileSync(path.join(dir, journal), Buffer.from([0x40, 0, 0, 0, 1, 2, 3, 4, 5, 6]));
    const again = await startEmbeddedMongo({ dataDir: dir });
    const c2 = await MongoClient.connect(again.uri());
    try {
      expect(await c2.db('torn').collection('t').countDocuments()).toBe(2);
      await c2.db('torn').collection('t').insertOne({ _id: 3 as any });
    } finally {
      await c2.close();
      await again.close();
    }
    const third = await startEmbeddedMongo({ dataDir: dir });
    const c3 = await MongoClient.connect(third.uri());
    try {
      expect(await c3.db('torn').collection('t').countDocuments()).toBe(3);
    } finally {
      await c3.close();
      await third.close();
    }
  });
});
