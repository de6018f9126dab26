import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { eventually } from '@helpdesk/testing';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * Ticketing checks a ticket's customer in its own projection (docs/adr/0055): with the customers
 * service stopped (its port closed, its consumer off RabbitMQ), 50 tickets naming customers created
 * before the stop are all 201. The customers service is then started again as the operator runs it
 * (its own process, `services/customers/src/main.ts`) on the same port, database and durable queue;
 * it counts the tickets from the `ticket.created` events its queue kept, and each customer's
 * `ticketCount` catches up. Runs in the infra pass, against the machine's RabbitMQ and Redis
 * (AMQP_URL, REDIS_URL); everything it starts it stops (the process by its pid).
 */
const run = process.env.AMQP_URL ? describe : describe.skip;
const ROOT = path.resolve(__dirname, '..', '..');
const CUSTOMERS = 5;
const TICKETS = 50;
const CONCURRENCY = 8;

/** The customers service's standalone process; resolves with it once it listens. */
function startCustomersProcess(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', 'services/customers/src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`customers did not listen within 60 s: ${out}`)), 60_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (/customers listening/.test(out)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`customers exited ${code} before listening: ${out}`));
    });
  });
}

/** SIGTERM to the process by its pid, then its exit (SIGKILL if it has not gone in 15 s). */
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid, 'SIGTERM');
  const killer = setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), 15_000);
  await exited;
  clearTimeout(killer);
}

run('tickets for known customers during a customers outage', () => {
  const secret = randomBytes(32).toString('hex');
  let tp: TestPlatform;
  let restarted: ChildProcess | null = null;

  beforeAll(async () => {
    // Our own token secret, so the restarted process accepts the gateway's and ticketing's tokens.
    tp = await startTestPlatform({ internalTokenSecret: secret });
  }, 60_000);

  afterAll(async () => {
    if (restarted) await stopProcess(restarted);
    await tp?.stop();
  }, 60_000);

  it('creates every ticket (201) while customers is down, and the ticket counts catch up after its restart', async () => {
    const ids: string[] = [];
    for (let i = 0; i < CUSTOMERS; i++) {
      const res = await tp.api.post(`${tp.teamPath}/customers`, { name: `Outage Customer ${i}`, email: `outage-${i}@example.com` });
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
    // Ticketing has heard of them from customer.created (no ticket has linked them: no call was made).
    const refs = tp.platform.ticketing.conn.collection('customer_refs');
    await eventually('ticketing projected every customer', async () => (await refs.countDocuments({ _id: { $in: ids } } as never)) === CUSTOMERS, 30_000);

    // Stop customers: its consumer first (the events stay in its durable queue), then HTTP, relay, database.
    const port = new URL(tp.platform.customers.url).port;
    await tp.platform.buses.customers.close();
    await tp.platform.customers.stop();

    const refused: string[] = [];
    const perCustomer = new Map<string, number>();
    let next = 0;
    const worker = async () => {
      while (next < TICKETS) {
        const i = next++;
        const customerId = ids[i % CUSTOMERS];
        const res = await tp.api.post(`${tp.teamPath}/tickets`, { title: `Outage ticket ${i}`, customerId });
        if (res.status === 201 && res.body.data.customerId === customerId) perCustomer.set(customerId, (perCustomer.get(customerId) ?? 0) + 1);
        else refused.push(`${res.status} ${JSON.stringify(res.body)}`);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(refused).toEqual([]);
    expect(ids.map((id) => perCustomer.get(id))).toEqual(ids.map(() => TICKETS / CUSTOMERS));
    // An id ticketing has never heard of still needs the customers service: 503, as before.
    const unknown = await tp.api.post(`${tp.teamPath}/tickets`, { title: 'Unknown customer', customerId: `cus_${'0'.repeat(24)}` });
    expect(unknown.status).toBe(503);
    expect(unknown.body.error.code).toBe('service_unavailable');

    // Start customers again where it was: the same port (the gateway's and ticketing's URL), database and queue.
    restarted = await startCustomersProcess({
      PORT: port,
      METRICS_PORT: '0',
      LOG_LEVEL: 'info',
      MONGO_URL: tp.platform.embeddedMongo!.uri('customers'),
      AMQP_URL: process.env.AMQP_URL!,
      AMQP_EXCHANGE: tp.amqpNames.exchange,
      AMQP_QUEUE_PREFIX: tp.amqpNames.queuePrefix,
      INTERNAL_TOKEN_SECRET: secret,
    });

    const counts = async () => Promise.all(ids.map(async (id) => (await tp.api.get(`${tp.teamPath}/customers/${id}`)).body.data?.ticketCount as number | undefined));
    await eventually('every ticketCount caught up', async () => (await counts()).every((n) => n === TICKETS / CUSTOMERS), 60_000);
    const listed = await tp.api.get(`${tp.teamPath}/tickets`, { query: { customerId: ids[0], pageSize: 100 } });
    expect(listed.body.meta.pagination.total).toBe(TICKETS / CUSTOMERS);
  }, 180_000);
});
