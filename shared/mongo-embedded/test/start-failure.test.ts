/**
 * A start that fails part-way (here: the port is taken) must release what it opened, above all the
 * data folder's journal and lock, so that a retry on the same folder works in the same process.
 * (Not a conformance test: it needs the data folder.)
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { MongoClient } from 'mongodb';
import { startEmbeddedMongo } from '../src';

const dirs: string[] = [];
const blockers: net.Server[] = [];

function tmpDir(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'mongo-embedded-'));
  dirs.push(d);
  return d;
}

/** A test-owned TCP server on a free loopback port; resolves with the port it holds. */
async function occupyPort(): Promise<number> {
  const s = net.createServer((sock) => sock.destroy());
  blockers.push(s);
  await new Promise<void>((resolve, reject) => {
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => resolve());
  });
  return (s.address() as net.AddressInfo).port;
}

afterAll(async () => {
  for (const s of blockers) await new Promise<void>((r) => s.close(() => r()));
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

describe('a start that fails part-way', () => {
  it('releases the data folder when the port is taken, so a retry on any free port opens it with its data', async () => {
    const dir = tmpDir();
    const first = await startEmbeddedMongo({ dataDir: dir });
    const c1 = await MongoClient.connect(first.uri());
    await c1.db('app').collection('things').insertOne({ _id: 'before' as any, n: 1 });
    await c1.close();
    await first.close();

    const taken = await occupyPort();
    await expect(startEmbeddedMongo({ port: taken, dataDir: dir })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(fs.existsSync(path.join(dir, 'mongod.lock'))).toBe(false);

    const retry = await startEmbeddedMongo({ port: 0, dataDir: dir });
    try {
      expect(retry.port).not.toBe(taken);
      const c2 = await MongoClient.connect(retry.uri());
      try {
        expect(await c2.db('app').collection('things').findOne({ _id: 'before' as any })).toEqual({ _id: 'before', n: 1 });
        await c2.db('app').collection('things').insertOne({ _id: 'after' as any, n: 2 });
      } finally {
        await c2.close();
      }
    } finally {
      await retry.close();
    }

    // The retry's close released the folder in turn, and its write is durable.
    const again = await startEmbeddedMongo({ dataDir: dir });
    try {
      const c3 = await MongoClient.connect(again.uri());
      expect(await c3.db('app').collection('things').countDocuments()).toBe(2);
      await c3.close();
    } finally {
      await again.close();
    }
  });

  it('fails the same way every time while the port stays taken (nothing is left open in between)', async () => {
    const dir = tmpDir();
    const taken = await occupyPort();
    for (let i = 0; i < 3; i++) {
      await expect(startEmbeddedMongo({ port: taken, dataDir: dir })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    }
    const ok = await startEmbeddedMongo({ port: 0, dataDir: dir });
    await ok.close();
  });

  it('refuses a folder that is open and still running, and releases nothing of the running server', async () => {
    const dir = tmpDir();
    const running = await startEmbeddedMongo({ dataDir: dir });
    try {
      await expect(startEmbeddedMongo({ dataDir: dir })).rejects.toThrow(/already open in this process/);
      // The running server's lock survives the refused start.
      expect(fs.existsSync(path.join(dir, 'mongod.lock'))).toBe(true);
      await expect(startEmbeddedMongo({ dataDir: dir })).rejects.toThrow(/already open in this process/);
      const c = await MongoClient.connect(running.uri());
      await c.db('app').collection('x').insertOne({ a: 1 });
      await c.close();
    } finally {
      await running.close();
    }
  });
});
