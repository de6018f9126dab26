import { EVENT_CATALOG, type EventEnvelope, type Partition } from '@helpdesk/contracts';
import { collectionOf, newId } from '@helpdesk/kit';
import { entryHash } from '../src/audit-log/chain';
import type { AuditEntryDoc } from '../src/audit-log/model';
import { auditRecorder } from '../src/audit-log/record';
import { workspaceModels } from '../src/collections';
import { useHarness, type Harness } from './helpers';

/** The audit log in micro-batches (docs/adr/0047): per chain one insert of consecutive entries, exactly as one by one. */
let h: Harness;
useHarness((started) => (h = started));
afterEach(() => jest.restoreAllMocks());

const newTeam = () => `b7f3c1d2-0000-4000-8000-${Math.floor(Math.random() * 1e12).toString().padStart(12, '0')}`;
let tick = 0;
const event = (teamId: string, mode: Partition = 'test', actor: EventEnvelope['actor'] = { type: 'system', id: null }): EventEnvelope => ({
  id: newId('event'),
  type: 'ticket.deleted',
  version: EVENT_CATALOG['ticket.deleted'].version,
  teamId,
  mode,
  occurredAt: new Date(Date.UTC(2026, 0, 1) + ++tick).toISOString(),
  requestId: null,
  actor,
  data: { ticketId: `tkt_${String(tick).padStart(22, '0')}`, customerId: null },
});
const ctx = (teamId: string, mode: Partition = 'test') =>
  ({ teamId, mode, requestId: 'req_test', keyId: null, keyType: 'internal', memberId: null, permissions: [] }) as never;
const entries = (teamId: string, mode: Partition = 'test') =>
  h.svc.conn.collection<AuditEntryDoc>('audit_log').find({ teamId, mode }).sort({ sequence: 1 }).toArray();
const audit = () => h.svc.rules.auditLog;
const auditCollection = () => collectionOf(h.svc.conn.models.AuditEntry!);
const insertSpy = () => jest.spyOn(auditCollection(), 'insertMany');

/** Every entry's place, link and hash as appending them one by one makes them: sequence 1.., the previous entry's hash, the hash of the entry. */
function expectChained(list: AuditEntryDoc[], teamId: string, mode: Partition = 'test') {
  list.forEach((e, i) => {
    expect(e.sequence).toBe(i + 1);
    expect(e.previousHash).toBe(i === 0 ? null : list[i - 1]!.hash);
    expect(e.hash).toBe(entryHash({ ...e, teamId, mode }));
  });
}
const withoutChain = ({ _id: _i, hash: _h, previousHash: _p, teamId: _t, ...rest }: AuditEntryDoc) => rest;

test('a batch of events writes each chain as appending them one by one would, in ONE insert per chain', async () => {
  const [one, many] = [newTeam(), newTeam()];
  const byOne = Array.from({ length: 12 }, () => event(one));
  for (const e of byOne) await audit().record(e);

  const other = newTeam();
  const byBatch = byOne.map((e) => ({ ...e, id: newId('event'), teamId: many }));
  const live = Array.from({ length: 5 }, () => event(many, 'live'));
  const third = Array.from({ length: 3 }, () => event(other));
  const inserts = insertSpy();
  const before = audit().batchStats();
  // Submitted in one turn: one batch, three chains (a team's two partitions are two chains).
  await Promise.all([...byBatch, ...live, ...third].map((e) => audit().record(e)));
  expect(audit().batchStats()).toMatchObject({ batches: before.batches + 1, items: before.items + 20, split: before.split });
  expect(inserts).toHaveBeenCalledTimes(3);
  expect(inserts.mock.calls.map(([docs]) => docs.length).sort((a, b) => a - b)).toEqual([3, 5, 12]);

  const [a, b] = [await entries(one), await entries(many)];
  expectChained(a, one);
  expectChained(b, many);
  expectChained(await entries(many, 'live'), many, 'live');
  expectChained(await entries(other), other);
  // Everything but the ids and the hashes (which cover the id and the team) is what one by one wrote, in the same order.
  expect(b.map((e) => ({ ...withoutChain(e), eventId: null }))).toEqual(a.map((e) => ({ ...withoutChain(e), eventId: null })));
  expect(b.map((e) => e.eventId)).toEqual(byBatch.map((e) => e.id));
  expect(await audit().verify(ctx(many))).toMatchObject({ valid: true, checkedCount: 12 });
  expect(await audit().verify(ctx(many, 'live'))).toMatchObject({ valid: true, checkedCount: 5 });

  // The next batch continues the chain from where this one ended, with no read of its end.
  const next = Array.from({ length: 4 }, () => event(many));
  const finds = jest.spyOn(h.svc.conn.models.AuditEntry!, 'findOne');
  await Promise.all(next.map((e) => audit().record(e)));
  expect(finds).not.toHaveBeenCalled();
  const after = await entries(many);
  expectChained(after, many);
  expect(after.slice(12).map((e) => e.eventId)).toEqual(next.map((e) => e.id));
});

test('a redelivered event inside a batch is recorded once, the rest of the batch after it, the chain unbroken', async () => {
  const team = newTeam();
  const first = Array.from({ length: 3 }, () => event(team));
  await Promise.all(first.map((e) => audit().record(e)));
  const fresh = Array.from({ length: 4 }, () => event(team));
  const before = audit().batchStats();
  // A redelivery of an event recorded before, in the middle of the batch, and one event delivered twice in the same batch.
  await Promise.all([fresh[0]!, fresh[1]!, first[1]!, fresh[2]!, fresh[2]!, fresh[3]!].map((e) => audit().record(e)));
  expect(audit().batchStats().split).toBe(before.split + 1);
  const list = await entries(team);
  expect(list.map((e) => e.eventId)).toEqual([...first, ...fresh].map((e) => e.id));
  expectChained(list, team);
  expect(await audit().verify(ctx(team))).toMatchObject({ valid: true, checkedCount: 7 });

  // A whole batch of redeliveries adds nothing.
  await Promise.all([...first, ...fresh].map((e) => audit().record(e)));
  expect((await entries(team)).length).toBe(7);
});

test('an event that cannot be recorded fails alone; the others of its batch are recorded', async () => {
  const team = newTeam();
  const bad = { ...event(team), occurredAt: 'not a date' };
  const good = [event(team), event(team), event(newTeam()), event(team)];
  const results = await Promise.allSettled([good[0]!, good[1]!, bad, good[2]!, good[3]!].map((e) => audit().record(e)));
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  const list = await entries(team);
  expect(list.map((e) => e.eventId)).toEqual([good[0]!.id, good[1]!.id, good[3]!.id]);
  expectChained(list, team);
});

test("actors' names: one look-up per actor in a batch, not one per event", async () => {
  const team = newTeam();
  const memberId = newId('member');
  await h.svc.conn.transaction((session) => h.svc.rules.members.insert(team, { id: memberId, name: 'Bo Batch', email: `bo-${memberId}@example.com`, role: 'agent' }, session));
  const names = jest.spyOn(h.svc.rules.members, 'nameOf');
  const events = Array.from({ length: 6 }, (_, i) => event(team, 'test', i % 2 ? { type: 'member', id: memberId } : { type: 'key', id: 'key_batch00000001' }));
  await Promise.all(events.map((e) => audit().record(e)));
  expect(names).toHaveBeenCalledTimes(1);
  expect((await entries(team)).map((e) => e.actorName)).toEqual(events.map((_, i) => (i % 2 ? 'Bo Batch' : 'API key key_batch00000001')));
});

test('two replicas recording one chain at once, with redeliveries to both: no gap, no fork, every event once', async () => {
  const team = newTeam();
  // A second recorder of the audit log on the same database: its own batches and its own idea of the chain's end.
  const replica = auditRecorder({ models: workspaceModels(h.svc.conn), members: h.svc.rules.members });
  const events = Array.from({ length: 80 }, () => event(team));
  const waves: Promise<void>[] = [];
  for (let w = 0; w < 8; w++) {
    const wave = events.slice(w * 10, w * 10 + 10);
    // Each wave: half to each replica, and a redelivery of an earlier event to the other one.
    wave.forEach((e, i) => waves.push((i % 2 ? replica : audit()).record(e)));
    if (w > 0) waves.push((w % 2 ? audit() : replica).record(events[w * 10 - 3]!));
    await new Promise((r) => setImmediate(r));
  }
  await Promise.all(waves);
  const list = await entries(team);
  expect(list.map((e) => e.eventId).sort()).toEqual(events.map((e) => e.id).sort());
  expectChained(list, team);
  expect(await audit().verify(ctx(team))).toMatchObject({ valid: true, checkedCount: 80 });
});
