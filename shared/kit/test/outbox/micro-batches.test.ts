import mongoose from 'mongoose';
import { AlreadyProcessed, consumeBatchesOnce, microBatches, outboxModel, processedModel } from '../../src/outbox';
import { envelope, TEAM, ticket } from '../bus/fixtures';
import { describeDb, startMongo, type TestMongo } from './mongo';

const settled = (p: Promise<unknown>) => p.then(() => 'ok', (e: Error) => `failed: ${e.message}`);

describe('microBatches', () => {
  it('applies what is submitted in one turn as one batch, and what arrives during it as the next', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const first = new Promise<void>((r) => (release = r));
    const b = microBatches<number>(async (items) => {
      batches.push(items);
      if (batches.length === 1) await first;
    });
    const a = [1, 2, 3].map((n) => b.submit(n));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const later = [4, 5].map((n) => b.submit(n)); // while the first batch is being applied
    release();
    await Promise.all([...a, ...later]);
    expect(batches).toEqual([[1, 2, 3], [4, 5]]);
    expect(b.stats()).toEqual({ batches: 2, items: 5, largest: 3, split: 0 });
  });

  it('never puts more than `max` items in a batch', async () => {
    const sizes: number[] = [];
    const b = microBatches<number>(async (items) => void sizes.push(items.length), { max: 4 });
    await Promise.all(Array.from({ length: 10 }, (_, i) => b.submit(i)));
    expect(sizes).toEqual([4, 4, 2]);
  });

  it('a failing batch is applied again one item at a time: only the bad item fails, a repeat is acknowledged', async () => {
    const applied: number[][] = [];
    const b = microBatches<number>(async (items) => {
      applied.push(items);
      if (items.includes(2)) throw new Error('two is bad');
      if (items.includes(3)) throw new AlreadyProcessed();
    });
    const results = await Promise.all([1, 2, 3, 4].map((n) => settled(b.submit(n))));
    expect(results).toEqual(['ok', 'failed: two is bad', 'ok', 'ok']);
    expect(applied).toEqual([[1, 2, 3, 4], [1], [2], [3], [4]]);
    expect(b.stats()).toMatchObject({ split: 1, batches: 2 });
  });

  it('a batch of one that fails rejects, so the bus redelivers it', async () => {
    const b = microBatches<number>(async () => {
      throw new Error('store down');
    });
    await expect(b.submit(1)).rejects.toThrow('store down');
  });
});

const noteSchema = new mongoose.Schema({ _id: String, count: Number }, { versionKey: false });
const notes = (conn: mongoose.Connection) => conn.models.Note ?? conn.model('Note', noteSchema, 'notes');

describeDb('consumeBatchesOnce (embedded MongoDB)', () => {
  let mongo: TestMongo;
  let conn: mongoose.Connection;
  beforeAll(async () => {
    mongo = await startMongo();
    conn = await mongo.connect('micro_batches');
  });
  afterAll(async () => {
    await mongo?.close();
  });

  it('records, applies and emits a batch in one transaction; a redelivered event is skipped alone', async () => {
    const seen: string[][] = [];
    const batches = consumeBatchesOnce(conn, 'tally', async (events, session, emitFor) => {
      seen.push(events.map((e) => e.id));
      await notes(conn).updateOne({ _id: 'tally' }, { $inc: { count: events.length } }, { upsert: true, session });
      for (const e of events) emitFor(e)({ type: 'ticket.created', data: { ticket: ticket(`tkt_for_${e.id}`) } });
    });
    const [e1, e2, e3] = [envelope(), envelope(), { ...envelope(), requestId: 'req_3' }];
    await Promise.all([batches.submit(e1), batches.submit(e2), batches.submit(e1)]);
    expect(seen).toEqual([[e1.id, e2.id]]); // a repeated id in one batch counts once
    // e2 again with a new one: the batch fails on e2's record, e3 is applied alone and e2 acknowledged.
    await Promise.all([batches.submit(e2), batches.submit(e3)]);
    expect(seen.slice(1)).toEqual([[e3.id]]);
    expect((await notes(conn).findById('tally').lean<{ count: number }>())?.count).toBe(3);
    expect(await processedModel(conn).countDocuments({ consumer: 'tally' })).toBe(3);
    const out = await outboxModel(conn).find({}).lean<{ envelope: { teamId: string; requestId: string | null; actor: unknown; data: { ticket: { id: string } } } }[]>();
    expect(out.map((r) => r.envelope.data.ticket.id).sort()).toEqual([e1, e2, e3].map((e) => `tkt_for_${e.id}`).sort());
    const fromE3 = out.find((r) => r.envelope.data.ticket.id === `tkt_for_${e3.id}`)!;
    expect(fromE3.envelope).toMatchObject({ teamId: TEAM, requestId: 'req_3', actor: { type: 'system', id: null } });
  });

  it('a batch whose work fails writes nothing: no record, no change, no event', async () => {
    const batches = consumeBatchesOnce(conn, 'broken', async (events, session, emitFor) => {
      await notes(conn).updateOne({ _id: 'broken' }, { $inc: { count: 1 } }, { upsert: true, session });
      emitFor(events[0]!)({ type: 'ticket.created', data: { ticket: ticket('tkt_never') } });
      throw new Error('half-way');
    });
    await expect(batches.submit(envelope())).rejects.toThrow('half-way');
    expect(await notes(conn).countDocuments({ _id: 'broken' })).toBe(0);
    expect(await processedModel(conn).countDocuments({ consumer: 'broken' })).toBe(0);
    expect(await outboxModel(conn).countDocuments({ 'envelope.data.ticket.id': 'tkt_never' })).toBe(0);
  });
});
