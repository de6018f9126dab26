// Dead letters say why, on a real RabbitMQ (issue 30 item 5): a message that is not JSON, one the
// catalog refuses and one whose handler keeps failing are each dead-lettered with their reason, which
// `dead-letters list` shows (never `rejected (rejected)`); a service without queues is skipped; the
// replay's audit line names the operator from the environment.
import * as amqp from 'amqplib';
import { operatorName, runDeadLetterCommand } from '../../src/bus';
import { AMQP_URL, deleteTopology, describeAmqp, newBus, uniqueNames } from './amqp-helpers';
import { envelope } from './fixtures';

describeAmqp('dead letters say why (RabbitMQ)', () => {
  const names = uniqueNames();
  const bus = newBus(AMQP_URL!, names);
  afterAll(async () => {
    await bus.close();
    await deleteTopology(AMQP_URL!, names, ['ledger']);
  });

  it('stores the parse error, the schema error with its path and the handler error; lists them; skips a service without a queue', async () => {
    await bus.subscribe('ledger', ['ticket.*'], async () => {
      throw new Error('ledger broken: no account for team');
    }, { maxAttempts: 2, retryDelayMs: 10 });
    const failing = envelope();
    await bus.publish([failing]);
    const conn = await amqp.connect(AMQP_URL!);
    try {
      const ch = await conn.createConfirmChannel();
      const send = (body: string) => new Promise<void>((resolve, reject) => ch.publish(names.exchange, 'ticket.created', Buffer.from(body), { persistent: true }, (e) => (e ? reject(e) : resolve())));
      await send('{"id": "evt_');
      const bad = envelope();
      await send(JSON.stringify({ ...bad, data: { ticket: { ...(bad.data.ticket as object), priority: 'whenever' } } }));
      await ch.close();
    } finally {
      await conn.close();
    }
    let records: Awaited<ReturnType<typeof bus.deadLetterQueue.list>> = [];
    const until = Date.now() + 15_000;
    while (records.length < 3 && Date.now() < until) {
      records = await bus.deadLetterQueue.list('ledger');
      await new Promise((r) => setTimeout(r, 100));
    }
    const errors = records.map((r) => r.error);
    expect(errors).toHaveLength(3);
    expect(errors).toContain('ledger broken: no account for team');
    expect(errors.filter((e) => /^parse error: /.test(e))).toHaveLength(1);
    expect(errors.filter((e) => /^schema error at data\.ticket\.priority: /.test(e))).toHaveLength(1);
    expect(errors.join('\n')).not.toMatch(/rejected \(rejected\)/);

    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l), operator: operatorName(undefined, { HELPDESK_OPERATOR: 'ada@ops' }) };
    expect(await runDeadLetterCommand({ action: 'list', services: ['nobody', 'ledger'], eventIds: null, yes: false, json: false }, bus.deadLetterQueue, io)).toBe(0);
    expect(err).toEqual([`nobody: skipped, nobody has no dead-letter queue ${names.queuePrefix}.nobody.dead (it consumes no events, or has never started).`]);
    expect(out).toHaveLength(3);
    expect(out.join('\n')).toMatch(/error="parse error: /);
    expect(out.join('\n')).toMatch(/error="schema error at data\.ticket\.priority: /);
    expect(out.join('\n')).toContain(`${failing.id}  ticket.created`);

    err.length = 0;
    expect(await runDeadLetterCommand({ action: 'discard', services: ['nobody', 'ledger'], eventIds: [failing.id], yes: true, json: false }, bus.deadLetterQueue, io)).toBe(0);
    const audit = JSON.parse(err.find((l) => l.startsWith('audit '))!.slice(6));
    expect(audit).toMatchObject({ operator: 'ada@ops', action: 'dead-letters.discard', service: 'ledger', eventIds: [failing.id] });
    expect((await bus.deadLetterQueue.list('ledger')).map((r) => r.eventId)).not.toContain(failing.id);
  }, 60_000);
});
