// /readyz names what a service cannot serve without (docs/adr/0038): its database and its broker channel.
import type { AddressInfo } from 'node:net';
import mongoose from 'mongoose';
import { AmqpBus, buildService, closeServer, createLogger, defineService, InternalTokens, listen, MemoryBus } from '../src';

const logger = createLogger('readiness', 'silent');
const tokens = new InternalTokens('s'.repeat(32));
const demo = defineService({ name: 'demo', operations: {}, models: () => ({}), rules: () => ({}), handlers: () => ({}) });

async function readyz(conn: mongoose.Connection, bus?: { ready?(): boolean } & Partial<MemoryBus>) {
  const { app } = buildService(demo, { conn, tokens, logger, bus: bus as MemoryBus });
  const server = await listen(app, 0, '127.0.0.1');
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/readyz`);
    return { status: res.status, body: await res.json() };
  } finally {
    await closeServer(server);
  }
}

it('a database that is not connected and a broker channel that is down are named in a 503', async () => {
  const conn = mongoose.createConnection(); // never opened: readyState 0
  const bus = new AmqpBus({ url: 'amqp://127.0.0.1:1', logger, reconnectMinMs: 60_000, reconnectMaxMs: 60_000 });
  try {
    expect(bus.ready()).toBe(false);
    expect(await readyz(conn, bus)).toEqual({ status: 503, body: { status: 'not_ready', service: 'demo', failing: ['mongodb', 'broker'] } });
  } finally {
    await bus.close();
  }
});

it('the in-process bus is ready until closed', async () => {
  const conn = mongoose.createConnection();
  Object.defineProperty(conn, 'readyState', { value: 1 });
  const bus = new MemoryBus(logger);
  expect(await readyz(conn, bus)).toEqual({ status: 200, body: { status: 'ready', service: 'demo' } });
  await bus.close();
  expect(await readyz(conn, bus)).toEqual({ status: 503, body: { status: 'not_ready', service: 'demo', failing: ['broker'] } });
});
