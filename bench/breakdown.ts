/**
 * Where a request's cost goes, read from outside the platform's processes (they run unchanged):
 *
 * - CPU per process: utime + stime from /proc/<pid>/stat (all threads), per process of the shape;
 * - store commands: the embedded MongoDB server's own count of the commands it ran
 *   (`serverStatus().embedded.commands`, in both shapes: the same server code, over TCP or in-process);
 *   the count a real MongoDB would see from the same code (its `opcounters` plus the driver's
 *   handshakes and transaction commands);
 * - broker messages: publishes and deliveries at the wire (bench/amqp-counter.ts; processes shape),
 *   and the consumers' own count of the deliveries they handled (`helpdesk_consumer_deliveries_total`,
 *   in both shapes: the in-process bus counts them too).
 *
 * A snapshot reads all of them at once; two snapshots and the request count give figures per request.
 */
import { MongoClient } from 'mongodb';
import { diffCounts, emptyCounts, type AmqpCounts } from './amqp-counter';
import { cpuSeconds } from './processes';
import type { RunningShape, ShapeProcess } from './shapes';

export interface Snapshot {
  at: number;
  /** CPU seconds so far, by process name. */
  cpu: Map<string, number>;
  commands: number;
  amqp: AmqpCounts;
  /** Consumer deliveries so far, by queue (the service, without the run's prefix). */
  consumed: Map<string, number>;
  /** Store commands by `<database> <command>` (only through bench/mongo-counter.ts). */
  byCommand: Map<string, number>;
}

/** A shape's counters, read together. */
export class Probe {
  private constructor(
    private readonly shape: RunningShape,
    private readonly mongo: MongoClient,
  ) {}

  /** serverStatus calls this probe made (each counts itself at the server). */
  ownCommands = 0;

  static async open(shape: RunningShape): Promise<Probe> {
    // One connection, no frequent monitoring: the probe's own commands stay few and counted.
    const mongo = new MongoClient(shape.mongoUrl, { directConnection: true, maxPoolSize: 1, heartbeatFrequencyMS: 3_600_000, serverMonitoringMode: 'poll' });
    await mongo.connect();
    const probe = new Probe(shape, mongo);
    await probe.commands();
    return probe;
  }

  /** The platform's processes (the local launcher and npm are left out). */
  platform(): ShapeProcess[] {
    return this.shape.processes().filter((p) => !p.tooling);
  }

  all(): ShapeProcess[] {
    return this.shape.processes();
  }

  async commands(): Promise<number> {
    this.ownCommands++;
    const status = await this.mongo.db('admin').command({ serverStatus: 1 });
    return Number(status.embedded?.commands ?? NaN);
  }

  async consumed(): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    await Promise.all(
      this.shape.metricsUrls().map(async (url) => {
        const text = await fetch(url, { signal: AbortSignal.timeout(5000) }).then((r) => r.text(), () => '');
        for (const line of text.split('\n')) {
          if (!line.startsWith('helpdesk_consumer_deliveries_total{')) continue;
          const queue = /queue="([^"]*)"/.exec(line)?.[1] ?? '?';
          const service = queue.split('.').pop()!; // `<prefix>.<service>` on RabbitMQ, `<service>` in process
          out.set(service, (out.get(service) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
        }
      }),
    );
    return out;
  }

  async snapshot(): Promise<Snapshot> {
    const cpu = new Map<string, number>();
    for (const p of this.all()) cpu.set(p.name, (cpu.get(p.name) ?? 0) + cpuSeconds([p.pid]));
    const [commands, consumed] = await Promise.all([this.commands(), this.consumed()]);
    return { at: Date.now(), cpu, commands, consumed, amqp: this.shape.amqpCounts?.() ?? emptyCounts(), byCommand: this.shape.storeCommands?.() ?? new Map() };
  }

  /** Total CPU seconds of the platform's processes now. */
  platformCpu(): number {
    return cpuSeconds(this.platform().map((p) => p.pid));
  }

  close(): Promise<void> {
    return this.mongo.close();
  }
}

/** What happened between two snapshots. */
export interface Delta {
  seconds: number;
  cpu: Map<string, number>;
  /** Store commands, the probe's own serverStatus calls taken out. */
  commands: number;
  amqp: AmqpCounts;
  consumed: Map<string, number>;
  byCommand: Map<string, number>;
}

const diffMap = (b: Map<string, number>, a: Map<string, number>) => new Map([...b].map(([k, v]) => [k, v - (a.get(k) ?? 0)] as [string, number]).filter(([, v]) => v !== 0));

/** `b − a`; `ownCommands`: the probe's serverStatus calls after `a` up to and including `b`'s. */
export function delta(a: Snapshot, b: Snapshot, ownCommands: number): Delta {
  const cpu = new Map([...b.cpu].map(([k, v]) => [k, v - (a.cpu.get(k) ?? v)] as [string, number]));
  return {
    seconds: (b.at - a.at) / 1000,
    cpu,
    commands: b.commands - a.commands - ownCommands,
    amqp: diffCounts(b.amqp, a.amqp),
    consumed: diffMap(b.consumed, a.consumed),
    byCommand: diffMap(b.byCommand, a.byCommand),
  };
}

/**
 * Waits until the platform's processes are idle: two half-second windows in a row whose CPU is at most
 * `idleCores` + 0.05 of a core (at most `maxMs`). The events of the previous row are consumed before
 * the next one is measured, and "until idle" ends when the requests' consumers have finished.
 */
export async function settle(probe: Probe, idleCores: number, maxMs = 30_000): Promise<boolean> {
  const until = Date.now() + maxMs;
  let quiet = 0;
  while (Date.now() < until) {
    const c0 = probe.platformCpu();
    await new Promise((r) => setTimeout(r, 500));
    const rate = (probe.platformCpu() - c0) / 0.5;
    quiet = rate <= idleCores + 0.05 ? quiet + 1 : 0;
    if (quiet >= 2) return true;
  }
  return false;
}
