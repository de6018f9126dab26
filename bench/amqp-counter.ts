/**
 * A counting TCP proxy in front of RabbitMQ (the benchmarks' processes shape points AMQP_URL at it):
 * every byte passes through unchanged, and the AMQP 0-9-1 method frames are read on the way to count
 * what the platform asks of the broker, per run and independent of the machine's speed:
 *
 * - publishes (basic.publish), by exchange and routing key (the event type);
 * - deliveries to consumers (basic.deliver), by queue (learnt from basic.consume / consume-ok);
 * - acks, nacks and rejects from consumers, and basic.get (a dead-letter look).
 *
 * RabbitMQ 3.10 without the management plugin keeps no cumulative message counters rabbitmqctl could
 * read, and its management API is not enabled on a shared broker just for a benchmark; counting at
 * the wire measures the shipped code unchanged. Only method frames are parsed (content headers and
 * bodies are skipped by their size), so the proxy costs the benchmark's process little.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface AmqpCounts {
  publishes: number;
  deliveries: number;
  acks: number;
  nacks: number;
  gets: number;
  /** `exchange routing-key` → publishes. */
  publishesBy: Map<string, number>;
  /** queue name → deliveries. */
  deliveriesBy: Map<string, number>;
}

export const emptyCounts = (): AmqpCounts => ({ publishes: 0, deliveries: 0, acks: 0, nacks: 0, gets: 0, publishesBy: new Map(), deliveriesBy: new Map() });

/** `after − before`, maps included. */
export function diffCounts(after: AmqpCounts, before: AmqpCounts): AmqpCounts {
  const diffMap = (a: Map<string, number>, b: Map<string, number>) => new Map([...a].map(([k, v]) => [k, v - (b.get(k) ?? 0)] as [string, number]).filter(([, v]) => v !== 0));
  return {
    publishes: after.publishes - before.publishes,
    deliveries: after.deliveries - before.deliveries,
    acks: after.acks - before.acks,
    nacks: after.nacks - before.nacks,
    gets: after.gets - before.gets,
    publishesBy: diffMap(after.publishesBy, before.publishesBy),
    deliveriesBy: diffMap(after.deliveriesBy, before.deliveriesBy),
  };
}

const copyCounts = (c: AmqpCounts): AmqpCounts => ({ ...c, publishesBy: new Map(c.publishesBy), deliveriesBy: new Map(c.deliveriesBy) });
const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

const FRAME_METHOD = 1;
const FRAME_END = 0xce;
const BASIC = 60;
const M = { consume: 20, consumeOk: 21, publish: 40, deliver: 60, get: 70, ack: 80, reject: 90, nack: 120 } as const;

/** Reads a short string at `at`: [value, offset after it]. */
function shortstr(buf: Buffer, at: number): [string, number] {
  const len = buf[at]!;
  return [buf.toString('utf8', at + 1, at + 1 + len), at + 1 + len];
}

/**
 * Splits one direction of an AMQP connection into frames and hands each method frame's
 * (channel, class, method, arguments) to `onMethod`; other frames are skipped by their size.
 */
class FrameReader {
  private pending: Buffer = Buffer.alloc(0);
  /** Bytes of a non-method frame still to pass over. */
  private skip = 0;

  constructor(
    private preamble: number,
    private readonly onMethod: (channel: number, cls: number, method: number, args: Buffer) => void,
  ) {}

  feed(chunk: Buffer): void {
    let buf = chunk;
    if (this.preamble > 0) {
      const n = Math.min(this.preamble, buf.length);
      this.preamble -= n;
      buf = buf.subarray(n);
    }
    if (this.skip > 0) {
      const n = Math.min(this.skip, buf.length);
      this.skip -= n;
      buf = buf.subarray(n);
    }
    if (!buf.length) return;
    buf = this.pending.length ? Buffer.concat([this.pending, buf]) : buf;
    let at = 0;
    while (buf.length - at >= 7) {
      const type = buf[at]!;
      const channel = buf.readUInt16BE(at + 1);
      const size = buf.readUInt32BE(at + 3);
      const whole = 7 + size + 1;
      if (type !== FRAME_METHOD) {
        if (buf.length - at >= whole) {
          at += whole;
          continue;
        }
        this.skip = whole - (buf.length - at);
        at = buf.length;
        break;
      }
      if (buf.length - at < whole) break; // a method frame is small: wait for the rest of it
      if (buf[at + whole - 1] === FRAME_END && size >= 4) this.onMethod(channel, buf.readUInt16BE(at + 7), buf.readUInt16BE(at + 9), buf.subarray(at + 11, at + 7 + size));
      at += whole;
    }
    this.pending = at < buf.length ? Buffer.from(buf.subarray(at)) : Buffer.alloc(0);
  }
}

export interface AmqpCounter {
  /** `amqp://user:pass@127.0.0.1:<proxy port><path>`: the broker URL with the proxy's port. */
  url: string;
  /** A copy of the counts so far. */
  counts(): AmqpCounts;
  close(): Promise<void>;
}

/** Starts the proxy on a free loopback port, forwarding to `brokerUrl`'s host and port. */
export async function startAmqpCounter(brokerUrl: string): Promise<AmqpCounter> {
  const broker = new URL(brokerUrl);
  const counts = emptyCounts();
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: broker.hostname, port: Number(broker.port || 5672) });
    sockets.add(client).add(upstream);
    /** Per channel: the queue of the basic.consume waiting for its consume-ok. */
    const consuming = new Map<number, string>();
    /** consumer tag → queue. */
    const tags = new Map<string, string>();
    const fromClient = new FrameReader(8, (channel, cls, method, args) => {
      if (cls !== BASIC) return;
      if (method === M.publish) {
        const [exchange, at] = shortstr(args, 2);
        const [key] = shortstr(args, at);
        counts.publishes++;
        bump(counts.publishesBy, `${exchange} ${key}`);
      } else if (method === M.consume) consuming.set(channel, shortstr(args, 2)[0]);
      else if (method === M.ack) counts.acks++;
      else if (method === M.nack || method === M.reject) counts.nacks++;
      else if (method === M.get) counts.gets++;
    });
    const fromBroker = new FrameReader(0, (channel, cls, method, args) => {
      if (cls !== BASIC) return;
      if (method === M.deliver) {
        counts.deliveries++;
        bump(counts.deliveriesBy, tags.get(shortstr(args, 0)[0]) ?? '(unknown consumer)');
      } else if (method === M.consumeOk) {
        tags.set(shortstr(args, 0)[0], consuming.get(channel) ?? '(unknown queue)');
        consuming.delete(channel);
      }
    });
    client.on('data', (d: Buffer) => {
      fromClient.feed(d);
      if (!upstream.write(d)) client.pause();
    });
    upstream.on('drain', () => client.resume());
    upstream.on('data', (d: Buffer) => {
      fromBroker.feed(d);
      if (!client.write(d)) upstream.pause();
    });
    client.on('drain', () => upstream.resume());
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const s of [client, upstream]) {
      s.on('error', end);
      s.on('close', end);
    }
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', () => resolve()));
  const url = new URL(brokerUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.toString(),
    counts: () => copyCounts(counts),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
