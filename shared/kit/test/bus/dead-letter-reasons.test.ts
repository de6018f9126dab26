// Dead letters say why (issue 30 item 5): the reason each is stored with, the operator named in the
// audit line of a replay or discard, and a service without a dead-letter queue skipped by `list`.
import { MemoryBus, NoDeadLetterQueue, operatorName, parseDelivery, runDeadLetterCommand, schemaError, type DeadLetterQueue, type DeadLetterRecord } from '../../src/bus';
import { envelope, silentLogger } from './fixtures';

function io(operator: string | null = 'ada') {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (l: string) => out.push(l), err: (l: string) => err.push(l), operator } };
}

/** A queue of fixed records; `missing` services have no dead-letter queue. */
function fakeQueue(records: DeadLetterRecord[], missing: string[] = []): DeadLetterQueue & { acted: string[] } {
  const acted: string[] = [];
  const check = (service: string) => {
    if (missing.includes(service)) throw new NoDeadLetterQueue(service, `helpdesk.${service}.dead`);
  };
  return {
    acted,
    list: async (service) => (check(service), records.filter((r) => r.service === service)),
    replay: async (service, ids) => (check(service), records.filter((r) => r.service === service && (!ids || ids.includes(r.eventId))).map((r) => (acted.push(`replay ${r.eventId}`), r))),
    discard: async (service, ids) => (check(service), records.filter((r) => r.service === service && (!ids || ids.includes(r.eventId))).map((r) => (acted.push(`discard ${r.eventId}`), r))),
  };
}

describe('dead-letter reasons', () => {
  it('names a parse error and a schema error with the path', () => {
    expect(parseDelivery('{not json').error).toMatch(/^parse error: /);
    const bad = { ...envelope(), data: { ticket: { ...envelope().data.ticket as object, title: 42 } } };
    expect(parseDelivery(JSON.stringify(bad)).error).toMatch(/^schema error at data\.ticket\.title: /);
    expect(parseDelivery(JSON.stringify({ ...envelope(), id: 'nope' })).error).toMatch(/^schema error at id: /);
    expect(parseDelivery(JSON.stringify({ ...envelope(), type: 'no.such_type' })).error).toBe('schema error: unknown event type no.such_type');
    expect(schemaError(new Error('x'))).toBe('schema error: x');
    expect(parseDelivery(JSON.stringify(envelope())).error).toBeUndefined();
  });

  it('the in-process bus stores the handler error and the schema error', async () => {
    const bus = new MemoryBus(silentLogger);
    try {
      await bus.subscribe('ledger', ['ticket.*'], async () => {
        throw new Error('ledger broken: no account');
      }, { maxAttempts: 1 });
      const e = envelope();
      await bus.publish([e]);
      await bus.idle();
      // A dead letter the catalog refuses on replay (validated again on delivery).
      bus.deadLetters.push({ service: 'ledger', event: { ...e, id: 'bad' }, attempts: 1, error: 'x' });
      await bus.deadLetterQueue.replay('ledger', ['bad']);
      await bus.idle();
      const errors = (await bus.deadLetterQueue.list('ledger')).map((r) => r.error);
      expect(errors).toEqual(['ledger broken: no account', expect.stringMatching(/^schema error at id: /)]);
    } finally {
      await bus.close();
    }
  });

  it('lists each dead letter with its reason, skipping a service that has no queue', async () => {
    const q = fakeQueue([{ service: 'webhooks', eventId: 'evt_1', type: 'ticket.created', teamId: null, error: 'parse error: Unexpected token', attempts: 1 }], ['community']);
    const t = io();
    expect(await runDeadLetterCommand({ action: 'list', services: ['community', 'webhooks'], eventIds: null, yes: false, json: false }, q, t.io)).toBe(0);
    expect(t.out).toEqual(['webhooks  evt_1  ticket.created  team=-  attempts=1  error="parse error: Unexpected token"']);
    expect(t.err).toEqual(['community: skipped, community has no dead-letter queue helpdesk.community.dead (it consumes no events, or has never started).']);
  });

  it('names the operator in the audit line of a replay or discard: --operator, else HELPDESK_OPERATOR, else USER; refuses without one', async () => {
    expect(operatorName('ada', { HELPDESK_OPERATOR: 'bob', USER: 'root' })).toBe('ada');
    expect(operatorName(undefined, { HELPDESK_OPERATOR: 'bob', USER: 'root' })).toBe('bob');
    expect(operatorName(undefined, { USER: 'root' })).toBe('root');
    expect(operatorName(undefined, { LOGNAME: 'lg' })).toBe('lg');
    expect(operatorName('  ', {})).toBeNull();

    const records: DeadLetterRecord[] = [{ service: 'webhooks', eventId: 'evt_1', type: 'ticket.created', teamId: null, error: 'boom', attempts: 5 }];
    const q = fakeQueue(records, ['community']);
    const t = io('ada');
    expect(await runDeadLetterCommand({ action: 'replay', services: ['community', 'webhooks'], eventIds: null, yes: true, json: false }, q, t.io)).toBe(0);
    expect(q.acted).toEqual(['replay evt_1']);
    const audit = JSON.parse(t.err.find((l) => l.startsWith('audit '))!.slice(6));
    expect(audit).toMatchObject({ operator: 'ada', action: 'dead-letters.replay', service: 'webhooks', eventIds: ['evt_1'] });

    const anonymous = io(null);
    expect(await runDeadLetterCommand({ action: 'discard', services: ['webhooks'], eventIds: null, yes: true, json: false }, q, anonymous.io)).toBe(2);
    expect(anonymous.err.join('\n')).toMatch(/--operator NAME or set HELPDESK_OPERATOR/);
    expect(q.acted).toEqual(['replay evt_1']);
    expect(JSON.stringify(anonymous.err)).not.toMatch(/unknown/);
  });
});
