import { EVENT_CATALOG, type Partition } from '@helpdesk/contracts';
import { collectionOf, newId, processedModel, type ServiceDeps } from '@helpdesk/kit';
import { gameProgress, latestProgress, type ProgressEvent } from '../src/consumers/game';
import type { MemberDoc } from '../src/members/model';
import { workspaceModels, type WorkspaceModels } from '../src/collections';
import { useHarness, TEAM_A, type Harness } from './helpers';

/** Members' level and xp from `game.player.progressed`, in micro-batches (kit consumeBatchesOnce, docs/adr/0047). */
let h: Harness;
useHarness((started) => (h = started));
afterEach(() => jest.restoreAllMocks());

const T0 = Date.UTC(2026, 2, 1);
const progressed = (memberId: string, xp: number, at: number, teamId = TEAM_A, mode: Partition = 'live'): ProgressEvent => ({
  id: newId('event'),
  type: 'game.player.progressed',
  version: EVENT_CATALOG['game.player.progressed'].version,
  teamId,
  mode,
  occurredAt: new Date(T0 + at).toISOString(),
  requestId: null,
  actor: { type: 'system', id: null },
  data: { memberId, seasonId: '2026-S1', level: 1 + Math.floor(xp / 100), xp },
});

const models = () => workspaceModels(h.svc.conn);
/** A consumer of its own (as the service's), so each test controls what is delivered together. */
const consumer = () => gameProgress({ conn: h.svc.conn, models: models() } as ServiceDeps<WorkspaceModels>);
const deliver = (c: ReturnType<typeof consumer>, events: ProgressEvent[]) => Promise.all(events.map((e) => c.handle(e, {} as never)));
async function newMembers(n: number, teamId = TEAM_A): Promise<string[]> {
  const ids = Array.from({ length: n }, () => newId('member'));
  for (const id of ids) await h.svc.conn.transaction((session) => h.svc.rules.members.insert(teamId, { id, name: 'Pat Player', email: `pat-${id}@example.com`, role: 'agent' }, session));
  return ids;
}
const levels = async (ids: string[]) => {
  const docs = await h.svc.conn.collection<MemberDoc>('members').find({ _id: { $in: ids } }).toArray();
  return ids.map((id) => docs.find((d) => d._id === id)).map((d) => ({ level: d!.level, xp: d!.xp }));
};

test('a batch of progress for several members leaves what one by one leaves: one processed insert, one bulk write, one transaction', async () => {
  const [a, b] = [await newMembers(3), await newMembers(3)];
  // The same progress, in the same order, for two sets of members: one by one, and delivered together.
  const script = (ids: string[]) => [
    progressed(ids[0]!, 50, 1), progressed(ids[1]!, 120, 2), progressed(ids[0]!, 90, 3), progressed(ids[2]!, 10, 4), progressed(ids[0]!, 140, 5), progressed(ids[1]!, 130, 6),
  ];
  const c = consumer();
  for (const e of script(a)) await c.handle(e, {} as never);

  const bulks = jest.spyOn(collectionOf(h.svc.conn.models.Member!), 'bulkWrite');
  const inserts = jest.spyOn(collectionOf(processedModel(h.svc.conn)), 'insertMany');
  const transactions = jest.spyOn(h.svc.conn, 'transaction');
  const batch = script(b);
  await deliver(c, batch);
  expect(bulks).toHaveBeenCalledTimes(1);
  expect(bulks.mock.calls[0]![0]).toHaveLength(3);
  expect(await levels(b)).toEqual(await levels(a));
  expect(await levels(b)).toEqual([{ level: 2, xp: 140 }, { level: 2, xp: 130 }, { level: 1, xp: 10 }]);
  // Every event of the batch recorded once, under the consumer's name.
  const records = await h.svc.conn.collection('processed_events').countDocuments({ _id: { $in: batch.map((e) => `workspace-game:${e.id}`) } } as never);
  expect(records).toBe(6);
  expect(transactions).toHaveBeenCalledTimes(1);
  expect(inserts).toHaveBeenCalledTimes(1);
});

test('older progress never overwrites newer: arriving later in the same batch, or in a later one', async () => {
  const [m, n] = await newMembers(2);
  const c = consumer();
  // In one batch: the newest first (a prestige back to 0 xp is newer than the 300 before it).
  await deliver(c, [progressed(m!, 0, 20), progressed(m!, 300, 10), progressed(n!, 70, 5)]);
  expect(await levels([m!, n!])).toEqual([{ level: 1, xp: 0 }, { level: 1, xp: 70 }]);
  // In a later batch, and one by one.
  await deliver(c, [progressed(m!, 250, 15), progressed(n!, 40, 4)]);
  await c.handle(progressed(n!, 60, 3), {} as never);
  expect(await levels([m!, n!])).toEqual([{ level: 1, xp: 0 }, { level: 1, xp: 70 }]);
  // Newer progress still lands; progress of the same moment lands in arrival order.
  await deliver(c, [progressed(m!, 30, 21), progressed(n!, 80, 6), progressed(n!, 90, 6)]);
  expect(await levels([m!, n!])).toEqual([{ level: 1, xp: 30 }, { level: 1, xp: 90 }]);
});

test('what a batch leaves per member is the newest, the later arrival among equals', () => {
  const e = [progressed('mem_a', 1, 5), progressed('mem_a', 2, 3), progressed('mem_b', 3, 1), progressed('mem_a', 4, 5), progressed('mem_a', 9, 9, 'b7f3c1d2-0000-4000-8000-0000000000bb')];
  expect([...latestProgress(e).values()].map((x) => x.data.xp)).toEqual([4, 3, 9]);
});

test('a redelivery is skipped, alone or inside a batch; the rest of the batch is applied', async () => {
  const [m, n] = await newMembers(2);
  const c = consumer();
  const first = progressed(m!, 100, 1);
  await c.handle(first, {} as never);
  // Someone else changes the member meanwhile (a stand-in for anything the repeat must not undo).
  await h.svc.conn.collection('members').updateOne({ _id: m } as never, { $set: { level: 1, xp: 7 } });
  await deliver(c, [progressed(n!, 40, 2), first, progressed(n!, 60, 3)]);
  expect(await levels([m!, n!])).toEqual([{ level: 1, xp: 7 }, { level: 1, xp: 60 }]);
  await c.handle(first, {} as never);
  expect(await levels([m!])).toEqual([{ level: 1, xp: 7 }]);
});

test('test-partition progress is kept apart: the live fields stay, test keys read the test partition\'s, live keys the live one\'s', async () => {
  const [m] = await newMembers(1);
  const c = consumer();
  await deliver(c, [progressed(m!, 100, 1, TEAM_A, 'test'), progressed(m!, 35, 2, TEAM_A, 'live')]);
  expect(await levels([m!])).toEqual([{ level: 1, xp: 35 }]);
  const doc = await h.svc.conn.collection<MemberDoc>('members').findOne({ _id: m! });
  expect({ testLevel: doc!.testLevel, testXp: doc!.testXp }).toEqual({ testLevel: 2, testXp: 100 });
  // Each partition's guard is its own: older test progress does not overwrite, newer does; live unchanged.
  await deliver(c, [progressed(m!, 50, 0, TEAM_A, 'test')]);
  await deliver(c, [progressed(m!, 150, 3, TEAM_A, 'test')]);
  const after = await h.svc.conn.collection<MemberDoc>('members').findOne({ _id: m! });
  expect({ level: after!.level, xp: after!.xp, testLevel: after!.testLevel, testXp: after!.testXp }).toEqual({ level: 1, xp: 35, testLevel: 2, testXp: 150 });
  // Through the API: the member as each partition's key reads it.
  const asTest = await h.api('GET', `/teams/${TEAM_A}/members/${m}`, { as: { mode: 'test' } });
  const asLive = await h.api('GET', `/teams/${TEAM_A}/members/${m}`, { as: { mode: 'live' } });
  expect({ test: pick(asTest.body.data), live: pick(asLive.body.data) }).toEqual({ test: { level: 2, xp: 150 }, live: { level: 1, xp: 35 } });
});

const pick = (m: { level: number; xp: number }) => ({ level: m.level, xp: m.xp });
