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

    const second = await startChild(dir);
    const c2 = await MongoClient.connect(second.uri);
    try {
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
    } finally {
      await c2.close();
      second.child.kill('SIGTERM');
      await killed(second.child);
    }
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
    // Live data is ~80 KB; without compaction the journal would hold > 3 MB.
    expect(sizes.snapshotBytes).toBeGreaterThan(0);
    expect(onDisk).toBeLessThan(400_000);
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
