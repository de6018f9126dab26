// Only an event's owner can publish it, on a real RabbitMQ (issue 30 item 6). A temporary vhost gets
// the generated broker users (deploy/rabbitmq/topology.ts, renamed with this run's tag, created with
// rabbitmqctl as deploy/test/rabbitmq-permissions does). As the notifications user the kit's bus
// consumes ticket events; ticketing's genuine ticket.created is handled (also after a retry: the copy
// keeps its publisher); a ticket.created forged by the customers user, written straight into
// notifications' queue through the default exchange (which its permissions allow), is dead-lettered
// with the reason and never handled; a message claiming another user's user_id is refused by the broker.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as amqp from 'amqplib';
import { AmqpBus } from '../../src/bus';
import { DEV_PASSWORD, definitions, passwordHash } from '../../../../deploy/rabbitmq/topology';
import { envelope, silentLogger, waitFor } from './fixtures';

const AMQP_URL = process.env.AMQP_URL;
const TAG = `own${randomBytes(3).toString('hex')}`;
const VHOST = `helpdesk-${TAG}`;
const SERVICES = ['ticketing', 'customers', 'notifications'];
const userOf = (service: string) => `${TAG}-${service}`;

function ctl(args: string[], input?: string): boolean {
  const out = spawnSync('rabbitmqctl', ['-q', ...args], { encoding: 'utf8', timeout: 60_000, input });
  return out.status === 0;
}
const haveCtl = Boolean(AMQP_URL) && ctl(['status']);
const describeBroker = haveCtl ? describe : describe.skip;

const urlAs = (service: string): string => {
  const u = new URL(AMQP_URL!);
  u.username = encodeURIComponent(userOf(service));
  u.password = encodeURIComponent(DEV_PASSWORD);
  u.pathname = `/${encodeURIComponent(VHOST)}`;
  return u.toString();
};

describeBroker(`only an event's owner publishes it (RabbitMQ vhost ${VHOST})`, () => {
  const buses: AmqpBus[] = [];
  const conns: amqp.ChannelModel[] = [];

  beforeAll(async () => {
    const defs = definitions() as { users: any[]; permissions: any[]; topic_permissions: any[] };
    const mine = new Set(SERVICES);
    const ok = ctl(['import_definitions', '--format', 'json'], JSON.stringify({
      users: defs.users.filter((u) => mine.has(u.name)).map((u) => ({ ...u, name: userOf(u.name), password_hash: passwordHash(userOf(u.name), DEV_PASSWORD) })),
      vhosts: [{ name: VHOST }],
      permissions: defs.permissions.filter((p) => mine.has(p.user)).map((p) => ({ ...p, user: userOf(p.user), vhost: VHOST })),
      topic_permissions: defs.topic_permissions.filter((p) => mine.has(p.user)).map((p) => ({ ...p, user: userOf(p.user), vhost: VHOST })),
    }));
    if (!ok) throw new Error('rabbitmqctl import_definitions failed');
    for (const s of SERVICES) {
      const until = Date.now() + 15_000;
      for (;;) {
        try {
          await (await amqp.connect(urlAs(s))).close();
          break;
        } catch (err) {
          if (Date.now() > until) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    }
  }, 90_000);

  afterAll(async () => {
    for (const b of buses) await b.close().catch(() => undefined);
    for (const c of conns) await c.close().catch(() => undefined);
    ctl(['delete_vhost', VHOST]);
    for (const s of SERVICES) ctl(['delete_user', userOf(s)]);
  }, 90_000);

  it('dead-letters a ticket.created forged by the customers user with the reason, applies the genuine one', async () => {
    const bus = (service: string) => {
      const b = new AmqpBus({ url: urlAs(service), logger: silentLogger, reconnectMinMs: 100, reconnectMaxMs: 500 });
      buses.push(b);
      return b;
    };
    const notifications = bus('notifications');
    const ticketing = bus('ticketing');
    expect(ticketing.user).toBe(userOf('ticketing'));
    const applied: string[] = [];
    const failOnce = new Set<string>();
    await notifications.subscribe('notifications', ['ticket.*'], async (e, ctx) => {
      if (failOnce.has(e.id) && ctx.attempt === 1) throw new Error('not yet');
      applied.push(e.id);
    }, { retryDelayMs: 20, maxAttempts: 3 });
    await ticketing.waitForConnection();

    const genuine = envelope();
    const retried = envelope();
    failOnce.add(retried.id);
    await ticketing.publish([genuine, retried]);
    await waitFor(() => applied.includes(genuine.id) && applied.includes(retried.id), 15_000, 'the genuine events applied');

    // The forgery: the customers user may not publish ticket.created on the exchange (topic
    // permissions), but it may write to the default exchange, straight into another service's queue.
    const conn = await amqp.connect(urlAs('customers'));
    conn.on('error', () => undefined);
    conns.push(conn);
    const forged = envelope();
    const unsigned = envelope();
    const ch = await conn.createConfirmChannel();
    const send = (event: object, props: amqp.Options.Publish) =>
      new Promise<void>((resolve, reject) => ch.sendToQueue('helpdesk.notifications', Buffer.from(JSON.stringify(event)), { persistent: true, ...props }, (err) => (err ? reject(err) : resolve())));
    await send(forged, { userId: userOf('customers'), type: 'ticket.created', messageId: forged.id });
    await send(unsigned, { type: 'ticket.created', messageId: unsigned.id });
    await ch.close();

    const dlq = notifications.deadLetterQueue;
    let records: Awaited<ReturnType<typeof dlq.list>> = [];
    const until = Date.now() + 15_000;
    while (records.length < 2 && Date.now() < until) {
      records = await dlq.list('notifications');
      await new Promise((r) => setTimeout(r, 100));
    }
    const byId = new Map(records.map((r) => [r.eventId, r.error]));
    expect(byId.get(forged.id)).toBe(`not-owner: ticket.created is owned by ticketing, published by user ${userOf('customers')} (service customers)`);
    expect(byId.get(unsigned.id)).toBe('not-owner: ticket.created carries no user_id (its owner ticketing publishes with one)');
    expect(applied).not.toContain(forged.id);
    expect(applied).not.toContain(unsigned.id);
    expect(applied.filter((id) => id === genuine.id)).toHaveLength(1);

    // Claiming to be ticketing: RabbitMQ itself refuses a user_id that is not the connection's user.
    const ch2 = await conn.createConfirmChannel();
    let closedWith: number | undefined;
    ch2.on('error', (err: { code?: number }) => (closedWith = err.code));
    const claimed = envelope();
    await expect(new Promise<void>((resolve, reject) =>
      ch2.sendToQueue('helpdesk.notifications', Buffer.from(JSON.stringify(claimed)), { userId: userOf('ticketing') }, (err) => (err ? reject(err) : resolve())),
    )).rejects.toBeDefined();
    await waitFor(() => closedWith !== undefined, 5000, 'the channel closed');
    expect(closedWith).toBe(406);
    await new Promise((r) => setTimeout(r, 300));
    expect(applied).not.toContain(claimed.id);
  }, 60_000);
});
