/**
 * The driver ↔ embedded server transport (docs/adr/0048): a findOne by _id and an insertOne through
 * the real mongodb driver to an embedded server in this process (as the one-process platform runs
 * it), over loopback TCP, over the server's Unix domain socket, and in process (`inProcessClients`:
 * the socket's URL served by an in-memory stream; a second server with the same data, since the
 * first's socket URL must stay a real socket), the last both with BSON messages on the stream and with
 * the commands handed over as objects (docs/adr/0052, the platform's default). The transports take turns in short rounds, so a
 * neighbour's load falls on all alike; prints ops/s, CPU µs per op, and the ratios to TCP.
 *
 *   npx tsx bench/mongo-transport.bench.ts [--seconds 2] [--rounds 3] [--concurrency 8] [--docs 10000]
 *
 * Not a test.
 */
import { measure, type ClosedLoopRun } from './closed-loop';
import { MongoClient, ObjectId } from 'mongodb';
import { startEmbeddedMongo } from '@helpdesk/mongo-embedded';

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}

type Run = Pick<ClosedLoopRun, 'ops' | 'secs' | 'cpuSecs'>;

const add = (a: Run, b: Run): Run => ({ ops: a.ops + b.ops, secs: a.secs + b.secs, cpuSecs: a.cpuSecs + b.cpuSecs });

async function main(): Promise<void> {
  const seconds = arg('seconds', 2);
  const rounds = arg('rounds', 3);
  const concurrency = arg('concurrency', 8);
  const N = arg('docs', 10_000);
  const server = await startEmbeddedMongo({ unixSocket: true });
  const inProcess = await startEmbeddedMongo({ unixSocket: true, inProcessClients: true });
  const inProcessWire = await startEmbeddedMongo({ unixSocket: true, inProcessClients: true, directCommands: false });
  const socketUri = server.socketUri();
  const inProcessUri = inProcess.socketUri();
  const inProcessWireUri = inProcessWire.socketUri();
  if (!socketUri || !inProcessUri || !inProcessWireUri) throw new Error('the server has no Unix domain socket here');
  const transports: [string, MongoClient][] = [
    ['TCP', await MongoClient.connect(server.uri(), { maxPoolSize: concurrency })],
    ['Unix socket', await MongoClient.connect(socketUri, { maxPoolSize: concurrency })],
    ['in process, BSON messages', await MongoClient.connect(inProcessWireUri, { maxPoolSize: concurrency })],
    ['in process', await MongoClient.connect(inProcessUri, { maxPoolSize: concurrency })],
  ];
  const ids = Array.from({ length: N }, () => new ObjectId());
  for (const c of [transports[0][1], transports[2][1], transports[3][1]]) {
    const seed = c.db('bench').collection('tickets');
    for (let i = 0; i < N; i += 5000) {
      await seed.insertMany(ids.slice(i, i + 5000).map((_id, k) => ({ _id, teamId: `team${(i + k) % 20}`, title: `Ticket ${i + k}`, status: 'open', tags: ['a', 'b'], createdAt: new Date() })));
    }
  }

  const cases: [string, (c: MongoClient) => (i: number) => Promise<unknown>][] = [
    ['findOne by _id', (c) => {
      const coll = c.db('bench').collection('tickets');
      return (i) => coll.findOne({ _id: ids[(i * 7919) % N] });
    }],
    ['insertOne', (c) => {
      const coll = c.db('bench').collection('inserts');
      return (i) => coll.insertOne({ teamId: `team${i % 20}`, title: 'Load test ticket', priority: 'high', tags: ['bench'], body: 'x'.repeat(800), createdAt: new Date() });
    }],
  ];
  console.log(`concurrency ${concurrency}, ${rounds} rounds of ${seconds} s per transport and case, alternating\n`);
  console.log('case'.padEnd(18) + 'transport'.padEnd(27) + 'ops/s'.padStart(9) + 'CPU µs/op'.padStart(11) + 'ops/s / TCP'.padStart(12) + 'CPU / TCP'.padStart(12));
  for (const [name, make] of cases) {
    const totals = new Map<string, Run>();
    for (const [, c] of transports) await measure(0.3, concurrency, make(c)); // warm-up
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? transports : [...transports].reverse();
      for (const [t, c] of order) {
        const run = await measure(seconds, concurrency, make(c));
        totals.set(t, add(totals.get(t) ?? { ops: 0, secs: 0, cpuSecs: 0 }, run));
      }
    }
    const tcp = totals.get('TCP')!;
    for (const [t] of transports) {
      const x = totals.get(t)!;
      const ratios = t === 'TCP' ? '' : `${((x.ops / x.secs) / (tcp.ops / tcp.secs)).toFixed(2)}x`.padStart(12) + `${((x.cpuSecs / x.ops) / (tcp.cpuSecs / tcp.ops)).toFixed(2)}x`.padStart(12);
      console.log(name.padEnd(18) + t.padEnd(27) + (x.ops / x.secs).toFixed(0).padStart(9) + ((x.cpuSecs / x.ops) * 1e6).toFixed(1).padStart(11) + ratios);
    }
  }
  console.log('\n(CPU µs/op: this process\'s CPU time, driver and server together, per operation; the last two columns: ops/s and CPU per op over TCP\'s.)');
  console.log(`connections accepted: TCP server ${JSON.stringify(server.connectionsByTransport())}, in-process servers ${JSON.stringify(inProcess.connectionsByTransport())} and ${JSON.stringify(inProcessWire.connectionsByTransport())}; their commands ${JSON.stringify(inProcess.inProcessCommands())} and ${JSON.stringify(inProcessWire.inProcessCommands())}`);
  for (const [, c] of transports) await c.close();
  await server.close();
  await inProcess.close();
  await inProcessWire.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
