import { randomBytes, randomUUID } from 'node:crypto';
import * as amqp from 'amqplib';
import type { EventEnvelope } from '@helpdesk/contracts';
import { AmqpBus, createLogger, MemoryBus, runDeadLetterCommand, type EventBus } from '@helpdesk/kit';
import { runCli, type CliIo } from '../src/cli';

/*
 * Dead letters as an operator meets them (docs/adr/0039): an event whose handler keeps failing is
 * dead-lettered with its error; the operator lists it, fixes the handler, replays it and sees it
 * applied once. Against real RabbitMQ (through the CLI) when AMQP_URL is set (the second CI pass),
 * on the in-process bus otherwise.
 */
const AMQP_URL = process.env.AMQP_URL;
const logger = createLogger('test', 'silent');
const SERVICE = 'ledger';
const names = { exchange: `test.dl${randomBytes(4).toString('hex')}.events`, queuePrefix: `test.dl${randomBytes(4).toString('hex')}` };

function closedTicket(): EventEnvelope {
  const now = new Date().toISOString();
  const ticket = {
    id: 'tkt_1', title: 'Printer on fire', status: 'closed', priority: 'normal', customerId: null, assignedTo: null, tags: [], notes: null,
    messageCount: 0, metadata: {}, channel: 'api', createdAt: now, updatedAt: now, resolvedAt: null, closedAt: now,
  };
  return {
    id: `evt_${randomBytes(12).toString('hex')}`, type: 'ticket.closed', version: 1, teamId: randomUUID(), mode: 'test', occurredAt: now,
    requestId: null, actor: { type: 'system', id: null }, data: { ticket, previousStatus: 'open' },
  } as EventEnvelope;
}

async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe(`dead letters (${AMQP_URL ? 'RabbitMQ, through the CLI' : 'in-process bus'})`, () => {
  let bus: EventBus;
  let broken = true;
  const applied: string[] = [];
  const out: string[] = [];
  const err: string[] = [];

  /** The operator's command: the CLI against the broker, or the same command on the in-process bus. */
  async function operator(args: string[]): Promise<number> {
    out.length = 0;
    err.length = 0;
    const io: CliIo = {
      out: (l) => out.push(l),
      err: (l) => err.push(l),
      env: { AMQP_URL, AMQP_EXCHANGE: names.exchange, AMQP_QUEUE_PREFIX: names.queuePrefix, USER: 'ops-test' },
      cwd: process.cwd(),
    };
    if (AMQP_URL) return runCli(['dead-letters', ...args], io);
    const [action, ...rest] = args;
    const flag = (name: string) => (rest.includes(name) ? rest[rest.indexOf(name) + 1] : undefined);
    return runDeadLetterCommand(
      { action: action as 'list', services: [flag('--service')!], eventIds: flag('--event')?.split(',') ?? null, yes: rest.includes('--yes'), json: rest.includes('--json') },
      bus.deadLetterQueue!,
      { out: io.out, err: io.err, operator: 'ops-test' },
    );
  }

  beforeAll(async () => {
    bus = AMQP_URL ? new AmqpBus({ url: AMQP_URL, logger, ...names }) : new MemoryBus(logger);
    await bus.subscribe(SERVICE, ['ticket.closed'], async (event) => {
      if (broken) throw new Error('ledger handler broken: no account for team');
      applied.push(event.id);
    }, { maxAttempts: 2, retryDelayMs: 10 });
  });

  afterAll(async () => {
    await bus.close();
    if (!AMQP_URL) return;
    const conn = await amqp.connect(AMQP_URL);
    const ch = await conn.createChannel();
    for (const q of ['', '.retry', '.dead']) await ch.deleteQueue(`${names.queuePrefix}.${SERVICE}${q}`);
    await ch.deleteExchange(names.exchange);
    await ch.deleteExchange(`${names.exchange}.dlx`);
    await conn.close();
  });

  it('lists the dead letter, refuses to act unconfirmed, replays it once fixed: applied exactly once, with an audit line', async () => {
    const event = closedTicket();
    await bus.publish([event]);
    await eventually(async () => (await operator(['list', '--service', SERVICE, '--json']), JSON.parse(out[0]) as unknown[]), (l) => l.length === 1, 'the dead letter');
    expect(JSON.parse(out[0])).toEqual([
      { service: SERVICE, eventId: event.id, type: 'ticket.closed', teamId: event.teamId, error: 'ledger handler broken: no account for team', attempts: 2 },
    ]);

    // Not confirmed (no --yes, no terminal): nothing happens.
    expect(await operator(['replay', '--service', SERVICE, '--event', event.id])).toBe(1);
    expect(err.join('\n')).toMatch(/pass --yes/);
    await operator(['list', '--service', SERVICE, '--json']);
    expect(JSON.parse(out[0])).toHaveLength(1);

    broken = false;
    expect(await operator(['replay', '--service', SERVICE, '--event', event.id, '--yes'])).toBe(0);
    expect(out).toEqual([`Replayed 1 dead letter(s) of ${SERVICE}.`]);
    const audit = JSON.parse(err.find((l) => l.startsWith('audit '))!.slice('audit '.length));
    expect(audit).toMatchObject({ operator: 'ops-test', action: 'dead-letters.replay', service: SERVICE, eventIds: [event.id] });
    await eventually(async () => applied.length, (n) => n === 1, 'the replayed event applied');

    // Gone from the dead letters; replaying again touches nothing, and the event stays applied once.
    await operator(['list', '--service', SERVICE]);
    expect(out).toEqual(['No dead letters.']);
    expect(await operator(['replay', '--service', SERVICE, '--event', event.id, '--yes'])).toBe(0);
    expect(out).toEqual(['No matching dead letters.']);
    expect(applied).toEqual([event.id]);
  });

  it('discards a dead letter: it is never applied', async () => {
    broken = true;
    const event = closedTicket();
    await bus.publish([event]);
    await eventually(async () => (await operator(['list', '--service', SERVICE, '--json']), JSON.parse(out[0]) as unknown[]), (l) => l.length === 1, 'the dead letter');
    expect(await operator(['discard', '--service', SERVICE, '--event', event.id, '--yes'])).toBe(0);
    expect(err.some((l) => l.includes('"action":"dead-letters.discard"'))).toBe(true);
    broken = false;
    await operator(['list', '--service', SERVICE, '--json']);
    expect(JSON.parse(out[0])).toEqual([]);
    expect(applied).not.toContain(event.id);
  });
});
