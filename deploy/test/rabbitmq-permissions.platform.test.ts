// The generated broker users on a real RabbitMQ (the infra pass: AMQP_URL set; docs/adr/0060). A
// temporary vhost gets the generated definitions (users renamed with this run's tag, everything else as
// generated), through the management HTTP API when it answers, else `rabbitmqctl`. Then, as each user:
// the kit's own bus sets up its topology, consumes, retries and dead-letters; every user publishes its
// own event types and is refused (channel closed, 403 ACCESS_REFUSED) for another service's; nobody
// declares or reads another service's queue; and RabbitMQ's Prometheus endpoint reports the queues the
// alerts use. The vhost and the users are deleted at the end.
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import * as amqp from 'amqplib';
import { parse } from 'yaml';
import type { EventEnvelope } from '@helpdesk/contracts';
import { AmqpBus, isAccessRefused, type BusLogger } from '@helpdesk/kit';
import { DEV_PASSWORD, EXCHANGE, brokerUsers, definitions, passwordHash, queueNames } from '../rabbitmq/topology';
import { read } from './helpers';

const AMQP_URL = process.env.AMQP_URL;
/** scripts/test-infra.sh: a broker is there, so this must run (never skip). */
const REQUIRED = process.env.HELPDESK_INFRA === 'real';
const TAG = `perm${randomBytes(3).toString('hex')}`;
const VHOST = `helpdesk-${TAG}`;
const userOf = (service: string) => `${TAG}-${service}`;
const USERS = brokerUsers();
const quiet = () => undefined;
const silent = { info: quiet, warn: quiet, error: quiet, debug: quiet } as unknown as BusLogger;

/** Creates and deletes the run's vhost and users: the management HTTP API, or rabbitmqctl on this machine. */
interface Admin {
  how: string;
  importDefinitions(defs: Record<string, unknown>): Promise<void>;
  deleteVhost(): Promise<void>;
  deleteUsers(names: string[]): Promise<void>;
}

async function managementAdmin(base: URL): Promise<Admin | null> {
  const api = process.env.RABBITMQ_MANAGEMENT_URL ?? `http://${base.hostname}:15672`;
  const auth = `Basic ${Buffer.from(`${decodeURIComponent(base.username || 'guest')}:${decodeURIComponent(base.password || 'guest')}`).toString('base64')}`;
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${api}/api${path}`, {
      method,
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    if (!res.ok && !(method === 'DELETE' && res.status === 404)) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  };
  try {
    await call('GET', '/overview');
  } catch {
    return null;
  }
  return {
    how: `management API ${api}`,
    importDefinitions: (defs) => call('POST', '/definitions', defs),
    deleteVhost: () => call('DELETE', `/vhosts/${encodeURIComponent(VHOST)}`),
    deleteUsers: (names) => call('POST', '/users/bulk-delete', { users: names }),
  };
}

function rabbitmqctlAdmin(): Admin | null {
  const ctl = (args: string[], input?: string) => {
    const out = spawnSync('rabbitmqctl', ['-q', ...args], { encoding: 'utf8', timeout: 60_000, input });
    if (out.status !== 0) throw new Error(`rabbitmqctl ${args.join(' ')}: ${out.stderr || out.error?.message}`);
  };
  try {
    ctl(['status']);
  } catch {
    return null;
  }
  return {
    how: 'rabbitmqctl',
    // On stdin: Debian's rabbitmqctl runs as the rabbitmq user, who may not read this process's temp files.
    importDefinitions: async (defs) => ctl(['import_definitions', '--format', 'json'], JSON.stringify(defs)),
    deleteVhost: async () => {
      try {
        ctl(['delete_vhost', VHOST]);
      } catch {
        /* not created */
      }
    },
    deleteUsers: async (names) => {
      for (const name of names) {
        try {
          ctl(['delete_user', name]);
        } catch {
          /* not created */
        }
      }
    },
  };
}

/** The generated definitions for this run: the vhost renamed, the users prefixed with the run's tag. */
function runDefinitions(): Record<string, unknown> {
  const defs = definitions() as { users: any[]; permissions: any[]; topic_permissions: any[] };
  const services = new Set(USERS.map((u) => u.name));
  return {
    users: defs.users.filter((u) => services.has(u.name)).map((u) => ({ ...u, name: userOf(u.name), password_hash: passwordHash(userOf(u.name), DEV_PASSWORD) })),
    vhosts: [{ name: VHOST }],
    permissions: defs.permissions.filter((p) => services.has(p.user)).map((p) => ({ ...p, user: userOf(p.user), vhost: VHOST })),
    topic_permissions: defs.topic_permissions.map((p) => ({ ...p, user: userOf(p.user), vhost: VHOST })),
  };
}

const urlAs = (service: string): string => {
  const u = new URL(AMQP_URL!);
  u.username = encodeURIComponent(userOf(service));
  u.password = encodeURIComponent(DEV_PASSWORD);
  u.pathname = `/${encodeURIComponent(VHOST)}`;
  return u.toString();
};

const connections: amqp.ChannelModel[] = [];
async function connectAs(service: string): Promise<amqp.ChannelModel> {
  const conn = await amqp.connect(urlAs(service));
  conn.on('error', () => undefined);
  connections.push(conn);
  return conn;
}

/** Runs `op` on a fresh channel: 'ok', or the code the broker closed the channel (or refused the publish) with. */
async function attempt(conn: amqp.ChannelModel, op: (ch: amqp.ConfirmChannel) => Promise<unknown>): Promise<'ok' | number> {
  const ch = await conn.createConfirmChannel();
  let closedWith: number | undefined;
  ch.on('error', (err: { code?: number }) => (closedWith = err.code));
  try {
    await op(ch);
    await ch.close();
    return 'ok';
  } catch (err) {
    await new Promise((r) => setTimeout(r, 50));
    return closedWith ?? (err as { code?: number }).code ?? -1;
  }
}

const publishTo = (routingKey: string) => (ch: amqp.ConfirmChannel) =>
  new Promise<void>((resolve, reject) => ch.publish(EXCHANGE, routingKey, Buffer.from('{}'), { persistent: true }, (err) => (err ? reject(err) : resolve())));

function ticketCreated(): EventEnvelope {
  const now = new Date().toISOString();
  const ticket = {
    id: `tkt_${randomBytes(6).toString('hex')}`, title: 'Printer on fire', status: 'new', priority: 'normal', customerId: null, assignedTo: null, tags: [], notes: null,
    messageCount: 0, metadata: {}, channel: 'api', createdAt: now, updatedAt: now, resolvedAt: null, closedAt: null,
  };
  return {
    id: `evt_${randomBytes(12).toString('hex')}`, type: 'ticket.created', version: 1, teamId: randomUUID(), mode: 'test', occurredAt: now, requestId: null,
    actor: { type: 'system', id: null }, data: { ticket },
  };
}

const waitFor = async (what: string, check: () => Promise<boolean> | boolean, ms = 15_000) => {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

if (!AMQP_URL) {
  if (REQUIRED) it('needs AMQP_URL (scripts/test-infra.sh sets it)', () => expect(AMQP_URL).toBeDefined());
  else it.skip('RabbitMQ permissions: AMQP_URL is not set (npm run test:infra runs this against a real broker)', () => {});
} else {
  describe(`the generated RabbitMQ users on ${new URL(AMQP_URL).host} (vhost ${VHOST})`, () => {
    let admin: Admin | null = null;
    const buses: AmqpBus[] = [];

    beforeAll(async () => {
      admin = (await managementAdmin(new URL(AMQP_URL))) ?? rabbitmqctlAdmin();
      if (!admin) throw new Error('neither the management API (RABBITMQ_MANAGEMENT_URL, default :15672) nor rabbitmqctl reaches the broker: cannot create the test vhost and users');
      await admin.importDefinitions(runDefinitions());
      // Imports may finish after the call returns: wait until every user logs in to the vhost.
      for (const u of USERS) {
        await waitFor(`user ${userOf(u.name)}`, async () => {
          try {
            await (await amqp.connect(urlAs(u.name))).close();
            return true;
          } catch {
            return false;
          }
        });
      }
    }, 120_000);

    afterAll(async () => {
      for (const bus of buses) await bus.close().catch(() => undefined);
      for (const conn of connections) await conn.close().catch(() => undefined);
      if (admin) {
        await admin.deleteVhost();
        await admin.deleteUsers(USERS.map((u) => userOf(u.name)));
      }
    }, 120_000);

    it("runs the kit's bus as each service's user: topology, consuming another service's events, retry and dead-letter copies", async () => {
      const refused: unknown[] = [];
      const bus = (service: string) => {
        const b = new AmqpBus({ url: urlAs(service), logger: silent, reconnectMinMs: 100, reconnectMaxMs: 500, onFatal: (err) => refused.push(err) });
        buses.push(b);
        return b;
      };
      const ticketing = bus('ticketing');
      const customers = bus('customers');
      const attempts = new Map<string, number>();
      const handled: string[] = [];
      const failing = new Set<string>();
      // customers consumes ticketing's events: the first attempt fails (a retry copy through the default exchange).
      await customers.subscribe('customers', ['ticket.created'], async (event, ctx) => {
        attempts.set(event.id, ctx.attempt);
        if (failing.has(event.id) || ctx.attempt === 1) throw new Error('not yet');
        handled.push(event.id);
      }, { retryDelayMs: 20, maxAttempts: 2 });
      await ticketing.waitForConnection();
      const ok = ticketCreated();
      const dead = ticketCreated();
      failing.add(dead.id);
      await ticketing.publish([ok, dead]);
      await waitFor('the retried event handled', () => handled.includes(ok.id));
      expect(attempts.get(ok.id)).toBe(2);
      // The other failed twice: its copy went to customers' dead-letter queue, which its user reads.
      const conn = await connectAs('customers');
      await waitFor('the dead letter', async () => (await attempt(conn, async (ch) => {
        if ((await ch.checkQueue(queueNames('customers').dead)).messageCount !== 1) throw new Error('not yet');
      })) === 'ok');
      expect(refused).toEqual([]);
      // ...and customers' bus may not publish ticketing's event: the broker refuses, the bus stops (exit 1 in a process).
      await expect(customers.publish([ticketCreated()])).rejects.toThrow();
      await waitFor('the refusal', () => refused.length === 1);
      expect(isAccessRefused(refused[0]) || /refused access/i.test(String(refused[0]))).toBe(true);
    }, 60_000);

    it.each(USERS.map((u) => [u.name, u] as const))('%s publishes its own event types only (403 ACCESS_REFUSED for any other)', async (name, user) => {
      const conn = await connectAs(name);
      for (const type of user.publishes.slice(0, 3)) expect([type, await attempt(conn, publishTo(type))]).toEqual([type, 'ok']);
      const others = USERS.filter((u) => u.name !== name && u.publishes.length).map((u) => u.publishes[0]);
      expect(others.length).toBeGreaterThan(0);
      for (const type of [...others, 'forged.type', '']) expect([type, await attempt(conn, publishTo(type))]).toEqual([type, 403]);
    }, 60_000);

    it("keeps each user off another service's queues: no declaring, binding, consuming or reading them", async () => {
      const conn = await connectAs('ticketing');
      const theirs = queueNames('customers');
      expect(await attempt(conn, (ch) => ch.assertQueue(`${theirs.main}.x`, { durable: true }))).toBe(403);
      expect(await attempt(conn, (ch) => ch.consume(theirs.main, () => undefined))).toBe(403);
      expect(await attempt(conn, (ch) => ch.get(theirs.dead))).toBe(403);
      expect(await attempt(conn, (ch) => ch.bindQueue(theirs.main, EXCHANGE, 'ticket.#'))).toBe(403);
      expect(await attempt(conn, (ch) => ch.purgeQueue(theirs.main))).toBe(403);
      expect(await attempt(conn, (ch) => ch.deleteQueue(theirs.main))).toBe(403);
      // Its own queue it declares and binds to any event (every service may subscribe to any type).
      const own = queueNames('ticketing').main;
      expect(await attempt(conn, async (ch) => {
        await ch.assertExchange(EXCHANGE, 'topic', { durable: true });
        await ch.assertQueue(own, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
        await ch.bindQueue(own, EXCHANGE, 'customer.created');
      })).toBe('ok');
    }, 60_000);

    it("RabbitMQ's Prometheus endpoint reports the queues the alerts and the dashboard read (when rabbitmq_prometheus answers)", async () => {
      const url = process.env.RABBITMQ_PROMETHEUS_URL ?? `http://${new URL(AMQP_URL).hostname}:15692/metrics/per-object`;
      let text: string | null = null;
      try {
        text = await (await fetch(url, { signal: AbortSignal.timeout(10_000) })).text();
      } catch {
        /* plugin not enabled on this broker */
      }
      if (text === null) {
        if (process.env.RABBITMQ_PROMETHEUS_URL) throw new Error(`${url} does not answer`);
        console.warn(`${url} does not answer: rabbitmq_prometheus is not enabled on this broker (scripts/ensure-infra.sh enables it on the broker it starts); metric names not checked`);
        return;
      }
      const exprs = [
        ...parse(read('deploy/prometheus/alerts.yml')).groups.flatMap((g: any) => g.rules.map((r: any) => r.expr)),
        ...JSON.parse(read('deploy/grafana/helpdesk.json')).panels.flatMap((p: any) => p.targets.map((t: any) => t.expr)),
      ].join('\n');
      const names = new Set([...exprs.matchAll(/\b(rabbitmq_[a-z_]+)\b/g)].map((m) => m[1]));
      expect(names.size).toBeGreaterThanOrEqual(4);
      const q = queueNames('customers');
      // Queue metrics are collected every few seconds: wait until customers' queues are there.
      await waitFor('per-queue metrics of the run', async () => {
        text = await (await fetch(url)).text();
        return text.includes(`vhost="${VHOST}",queue="${q.dead}"`);
      }, 30_000);
      for (const name of names) {
        for (const queue of [q.main, q.dead]) {
          expect([name, queue, new RegExp(`^${name}\\{[^}]*vhost="${VHOST}",queue="${queue.replace(/\./g, '\\.')}"[^}]*\\} `, 'm').test(text!)]).toEqual([name, queue, true]);
        }
      }
    }, 60_000);
  });
}
