import { EVENT_CATALOG, type EventEnvelope } from '@helpdesk/contracts';
import { newId } from '@helpdesk/kit';
import { startHarness, TEAM_A, type Harness } from './helpers';

/** The audit log's chain under concurrent events of one team (docs/adr/0023, 0043). */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

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
