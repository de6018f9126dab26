import { EVENT_CATALOG, type EventEnvelope } from '@helpdesk/contracts';
import { newId } from '@helpdesk/kit';
import { canonicalJson, entryHash } from '../src/audit-log/chain';
import { useHarness, TEAM_A, type Harness } from './helpers';

/** The audit log's chain under concurrent events of one team (docs/adr/0023, 0043). */
let h: Harness;
useHarness((started) => (h = started));

const event = (i: number): EventEnvelope => ({
  id: newId('event'),
  type: 'ticket.deleted',
  version: EVENT_CATALOG['ticket.deleted'].version,
  teamId: TEAM_A,
  mode: 'test',
  occurredAt: new Date(Date.now() + i).toISOString(),
  requestId: null,
  actor: { type: 'system', id: null },
  data: { ticketId: `tkt_${String(i).padStart(22, '0')}`, customerId: null },
});

test('60 events of one team recorded at once: every one appended, the chain unbroken and numbered 1..60', async () => {
  const events = Array.from({ length: 60 }, (_, i) => event(i));
  // More appends at once than the append's retries: they take turns, none gives up.
  await Promise.all(events.map((e) => h.svc.rules.auditLog.record(e)));
  const scope = { teamId: TEAM_A, mode: 'test' as const, requestId: 'req_test', keyId: null, keyType: 'internal' as const, memberId: null, permissions: [] };
  expect(await h.svc.rules.auditLog.verify(scope as never)).toMatchObject({ valid: true, checkedCount: 60 });
  // A redelivered event adds nothing.
  await Promise.all(events.slice(0, 10).map((e) => h.svc.rules.auditLog.record(e)));
  expect(await h.svc.rules.auditLog.verify(scope as never)).toMatchObject({ valid: true, checkedCount: 60 });
});

describe('what the append keeps per process (docs/adr/0045)', () => {
  const TEAM = 'b7f3c1d2-0000-4000-8000-00000000aa01';
  const scope = { teamId: TEAM, mode: 'test' as const, requestId: 'req_test', keyId: null, keyType: 'internal' as const, memberId: null, permissions: [] };
  const of = (e: EventEnvelope): EventEnvelope => ({ ...e, id: newId('event'), teamId: TEAM });
  const entries = () => h.svc.conn.collection('audit_log').find({ teamId: TEAM, mode: 'test' } as any).sort({ sequence: 1 }).toArray();

  test('an entry another replica appended meanwhile: the next append finds the chain’s end again', async () => {
    await h.svc.rules.auditLog.record(of(event(1)));
    await h.svc.rules.auditLog.record(of(event(2)));
    // Another process appends entry 3 (this process still has entry 2 as the end).
    const last = (await entries()).at(-1)!;
    const theirs = {
      _id: newId('audit'), teamId: TEAM, mode: 'test' as const, eventId: newId('event'), action: 'ticket.deleted', resourceType: 'ticket',
      resourceId: null, actorType: 'system', actorId: null, actorName: 'System', details: {}, createdAt: new Date(), sequence: last.sequence + 1, previousHash: last.hash,
    };
    await h.svc.conn.collection('audit_log').insertOne({ ...theirs, hash: entryHash(theirs as never) } as any);
    await h.svc.rules.auditLog.record(of(event(3)));
    expect((await entries()).map((e) => e.sequence)).toEqual([1, 2, 3, 4]);
    expect(await h.svc.rules.auditLog.verify(scope as never)).toMatchObject({ valid: true, checkedCount: 4 });
  });

  test('a member’s name names their events until they are removed; the very next event after names the id', async () => {
    const memberId = newId('member');
    await h.svc.conn.transaction((session) => h.svc.rules.members.insert(TEAM, { id: memberId, name: 'Ann Agent', email: `ann-${memberId}@example.com`, role: 'agent' }, session));
    const byAnn = () => ({ ...of(event(9)), actor: { type: 'member' as const, id: memberId } });
    const first = byAnn();
    await h.svc.rules.auditLog.record(first);
    expect((await entries()).find((e) => e.eventId === first.id)?.actorName).toBe('Ann Agent');
    await h.svc.rules.members.remove({ ...scope, keyType: 'secret', keyId: 'key_testkey0001', memberId: null, permissions: [] } as never, memberId);
    const second = byAnn();
    await h.svc.rules.auditLog.record(second);
    expect((await entries()).find((e) => e.eventId === second.id)?.actorName).toBe(`Member ${memberId}`);
  });
});

describe('the chain hash', () => {
  // Stored entries carry hashes: a change of the canonical form breaks every chain already written.
  test('canonical JSON sorts keys by UTF-16 code units at every level, drops undefined fields, writes dates as ISO strings', () => {
    const value = { z: 1, a: [1, undefined, { y: null, b: 'é', B: 'x', ä: true }], m: undefined, d: new Date('2026-01-02T03:04:05.006Z'), n: { '10': 1, '9': 2, '': 3 }, s: 'quote " \\ \n', u: '\u2028' };
    expect(canonicalJson(value)).toBe('{"a":[1,null,{"B":"x","b":"é","y":null,"ä":true}],"d":"2026-01-02T03:04:05.006Z","n":{"":3,"10":1,"9":2},"s":"quote \\" \\\\ \\n","u":"\u2028","z":1}');
  });

  test('an entry hashes as it always did', () => {
    const entry = {
      _id: 'aud_1', teamId: 't', mode: 'test', eventId: 'evt_1', action: 'ticket.created', resourceType: 'ticket', resourceId: 'tkt_1',
      actorType: 'member', actorId: 'mem_1', actorName: 'Ann', details: { title: 'Printer', tags: ['a', 'b'], nested: { k: undefined, j: 0 } },
      createdAt: new Date('2026-01-02T03:04:05.006Z'), sequence: 7, previousHash: 'abc',
    };
    expect(entryHash(entry as never)).toBe('12534b6767439acab5368a756137281cfcf8bc6a276d3017486fd7575386b234');
  });
});
