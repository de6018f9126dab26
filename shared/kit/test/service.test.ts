/** kit's startService: the start-up every service shares, and its undoing on failure and at stop. */
import { startEmbeddedMongo, type EmbeddedMongo } from '@helpdesk/mongo-embedded';
import { createServiceApp, createLogger, InternalTokens, MemoryBus, startService, type ServiceDefinition } from '../src';

const logger = createLogger('service-test', 'silent');
const tokens = new InternalTokens('s'.repeat(32));
let mongo: EmbeddedMongo;
beforeAll(async () => {
  mongo = await startEmbeddedMongo();
});
afterAll(() => mongo.close());

function definition(log: string[], overrides: Partial<ServiceDefinition> = {}): ServiceDefinition {
  return {
    name: 'demo',
    init: async (conn) => log.push(`init ${conn.name}`),
    subscribe: async (bus) => {
      log.push('subscribe');
      await bus.subscribe('demo', ['ticket.created'], async () => {});
    },
    workers: () => [{ stop: async () => void log.push('worker stopped') }],
    app: () => createServiceApp({ name: 'demo', logger, tokens, routes: () => {} }),
    ...overrides,
  };
}

test('connects to its own database, starts in order, listens, and stops the workers before the connection', async () => {
  const log: string[] = [];
  const bus = new MemoryBus(logger);
  const svc = await startService(definition(log), { mongoUrl: mongo.uri(), bus, tokens, logger });
  expect(log).toEqual(['init demo', 'subscribe']);
  expect(svc.conn.name).toBe('demo');
  expect((await fetch(`${svc.url}/healthz`)).status).toBe(200);
  expect((await fetch(`${svc.url}/anything`)).status).toBe(401); // no internal token
  await svc.stop();
  expect(log).toEqual(['init demo', 'subscribe', 'worker stopped']);
  expect(svc.conn.readyState).toBe(0);
  await expect(fetch(`${svc.url}/healthz`)).rejects.toThrow();
  await bus.close();
});

test('a failure part-way stops what had started and closes the connection', async () => {
  const log: string[] = [];
  const bus = new MemoryBus(logger);
  const boom = definition(log, {
    dbName: undefined,
    app: () => {
      throw new Error('app failed');
    },
  } as Partial<ServiceDefinition>);
  await expect(startService(boom, { mongoUrl: mongo.uri(), dbName: 'demo2', bus, tokens, logger })).rejects.toThrow('app failed');
  expect(log).toEqual(['init demo2', 'subscribe', 'worker stopped']);
  await bus.close();
});
