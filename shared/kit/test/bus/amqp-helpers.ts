import { randomBytes } from 'node:crypto';
import * as amqp from 'amqplib';
import { AmqpBus } from '../../src/bus';
import { silentLogger } from './fixtures';

export const AMQP_URL = process.env.AMQP_URL;
export const describeAmqp = AMQP_URL ? describe : describe.skip;

/** Unique names per test run so runs never collide on a shared broker. */
export function uniqueNames(): { exchange: string; queuePrefix: string } {
  const tag = `t${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  return { exchange: `test.${tag}.events`, queuePrefix: `test.${tag}` };
}

export function newBus(url: string, names: { exchange: string; queuePrefix: string }, extra: Partial<ConstructorParameters<typeof AmqpBus>[0]> = {}): AmqpBus {
  return new AmqpBus({ url, logger: silentLogger, ...names, reconnectMinMs: 100, reconnectMaxMs: 1000, ...extra });
}

/** Deletes the exchanges and the queues of `services` declared under `names`. */
export async function deleteTopology(url: string, names: { exchange: string; queuePrefix: string }, services: string[]): Promise<void> {
  const conn = await amqp.connect(url);
  try {
    const ch = await conn.createChannel();
    for (const s of services) {
      for (const q of [`${names.queuePrefix}.${s}`, `${names.queuePrefix}.${s}.retry`, `${names.queuePrefix}.${s}.dead`]) await ch.deleteQueue(q);
    }
    await ch.deleteExchange(names.exchange);
    await ch.deleteExchange(`${names.exchange}.dlx`);
    await ch.close();
  } finally {
    await conn.close();
  }
}

/** Messages and consumers of a queue (a passive check). */
export async function queueInfo(url: string, queue: string): Promise<{ messageCount: number; consumerCount: number }> {
  const conn = await amqp.connect(url);
  try {
    const ch = await conn.createChannel();
    const { messageCount, consumerCount } = await ch.checkQueue(queue);
    await ch.close();
    return { messageCount, consumerCount };
  } finally {
    await conn.close();
  }
}

export async function queueDepth(url: string, queue: string): Promise<number> {
  return (await queueInfo(url, queue)).messageCount;
}

/** Reads (and acks) every message from a queue. */
export async function drainQueue(url: string, queue: string): Promise<amqp.GetMessage[]> {
  const conn = await amqp.connect(url);
  const out: amqp.GetMessage[] = [];
  try {
    const ch = await conn.createChannel();
    for (;;) {
      const m = await ch.get(queue, { noAck: true });
      if (!m) break;
      out.push(m);
    }
    await ch.close();
  } finally {
    await conn.close();
  }
  return out;
}
