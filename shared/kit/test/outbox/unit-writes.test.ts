/**
 * Writes made `atCommit` in a withOutbox unit (docs/adr/0078): they go out with the unit's outbox rows
 * in ONE command before the commit, in order, in the unit's transaction; outside a unit they are
 * written at once. Compared with the same unit written command by command.
 */
import mongoose from 'mongoose';
import { startEmbeddedMongo, type EmbeddedMongo } from '@helpdesk/mongo-embedded';
import { outboxModel, scoped, teamAndPartition, tenancyPlugin, withOutbox, type EventScope } from '../../src';
import { TEAM, ticket } from '../bus/fixtures';
import type { Partition } from '@helpdesk/contracts';

interface NoteDoc { _id: string; teamId: string; mode: Partition; text: string; n: number }
const noteSchema = new mongoose.Schema<NoteDoc>({ _id: String, text: String, n: Number }, { versionKey: false, collection: 'notes' });
noteSchema.plugin(tenancyPlugin);

const scope: EventScope = { teamId: TEAM, mode: 'test', requestId: 'req_1', actor: { type: 'member', id: 'mem_1' } };
const inScope = { teamId: TEAM, mode: 'test' as const };

let mongo: EmbeddedMongo;
let conn: mongoose.Connection;
let notes: ReturnType<typeof declare>['notes'];
const declare = (c: mongoose.Connection) => ({ notes: teamAndPartition(c.model<NoteDoc>('Note', noteSchema)) });

/** Store commands the server ran while `fn` ran. */
async function commandsDuring(fn: () => Promise<unknown>): Promise<number> {
  const before = mongo.stats().commands;
  await fn();
  return mongo.stats().commands - before;
}

// Over TCP, and in process as the one-process platform reaches it (commands handed over as objects, docs/adr/0052).
describe.each(['over TCP', 'in process'])('%s', (transport) => {
  beforeAll(async () => {
    mongo = transport === 'in process' ? await startEmbeddedMongo({ unixSocket: true, inProcessClients: true }) : await startEmbeddedMongo();
    conn = mongoose.createConnection((transport === 'in process' && mongo.socketUri('unit_writes')) || mongo.uri('unit_writes'), { autoIndex: true, autoCreate: true });
    await conn.asPromise();
    notes = declare(conn).notes;
    await conn.model('Note').createCollection();
    await outboxModel(conn).createCollection();
  });
  afterAll(async () => {
    await conn?.close();
    await mongo?.close();
  });
  beforeEach(async () => {
    await conn.db!.collection('notes').deleteMany({});
    await conn.db!.collection('outbox').deleteMany({});
  });

  /** One unit: two inserts, an update of the first, one event; `atCommit` or not. */
  const unit = (id: string, atCommit: boolean) =>
    withOutbox(conn, scope, async (session, emit) => {
      const db = scoped({ notes }, inScope);
      await db.notes.leanInsert([{ _id: `${id}_a`, text: 'a', n: 0 }, { _id: `${id}_b`, text: 'b', n: 0 }], { session, atCommit });
      if (atCommit) await db.notes.leanUpdateOneAtCommit({ _id: `${id}_a` }, { $inc: { n: 1 } }, { session });
      else await db.notes.leanUpdateOne({ _id: `${id}_a` }, { $inc: { n: 1 } }, { session });
      emit({ type: 'ticket.created', data: { ticket: ticket(`tkt_${id}`) } });
      return id;
    });

  describe('writes sent with the outbox rows', () => {
    it('leave the same rows and events as the same unit written command by command, in fewer commands', async () => {
      const oneByOne = await commandsDuring(() => unit('x', false));
      const together = await commandsDuring(() => unit('y', true));
      const rows = await conn.db!.collection('notes').find({}, { projection: { _id: 1, n: 1, text: 1, teamId: 1, mode: 1 } }).sort({ _id: 1 }).toArray();
      expect(rows).toEqual([
        { _id: 'x_a', text: 'a', n: 1, teamId: TEAM, mode: 'test' },
        { _id: 'x_b', text: 'b', n: 0, teamId: TEAM, mode: 'test' },
        { _id: 'y_a', text: 'a', n: 1, teamId: TEAM, mode: 'test' },
        { _id: 'y_b', text: 'b', n: 0, teamId: TEAM, mode: 'test' },
      ]);
      const events = await outboxModel(conn).find().lean();
      expect(events.map((r) => (r.envelope.data as { ticket: { id: string } }).ticket.id).sort()).toEqual(['tkt_x', 'tkt_y']);
      // Inserts, update, outbox insert and commit, against one bulkWrite and the commit.
      expect(oneByOne).toBe(together + 2);
      expect(together).toBe(2);
    });

    it('are not visible outside before the commit, and a failed unit leaves none of them', async () => {
      const err = await withOutbox(conn, scope, async (session, emit) => {
        await scoped({ notes }, inScope).notes.leanInsert([{ _id: 'gone', text: 'a', n: 0 }], { session, atCommit: true });
        expect(await conn.db!.collection('notes').countDocuments({ _id: 'gone' as never })).toBe(0);
        emit({ type: 'ticket.created', data: { ticket: ticket('tkt_gone') } });
        throw new Error('refused');
      }).catch((e: Error) => e);
      expect((err as Error).message).toBe('refused');
      expect(await conn.db!.collection('notes').countDocuments()).toBe(0);
      expect(await conn.db!.collection('outbox').countDocuments()).toBe(0);
    });

    it('a duplicate key among them fails the unit with code 11000, as the insert alone would', async () => {
      await unit('d', true);
      const err = await unit('d', true).catch((e: { code?: number }) => e);
      expect((err as { code?: number }).code).toBe(11000);
      expect(await conn.db!.collection('notes').countDocuments()).toBe(2);
      expect(await conn.db!.collection('outbox').countDocuments()).toBe(1);
    });

    it('concurrent units writing the same document each count once (a conflict retries the unit, as a single write does)', async () => {
      await scoped({ notes }, inScope).notes.leanInsert([{ _id: 'shared', text: 'a', n: 0 }]);
      await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          withOutbox(conn, scope, async (session, emit) => {
            await scoped({ notes }, inScope).notes.leanUpdateOneAtCommit({ _id: 'shared' }, { $inc: { n: 1 } }, { session });
            emit({ type: 'ticket.created', data: { ticket: ticket(`tkt_c${i}`) } });
          }),
        ),
      );
      expect(await conn.db!.collection('notes').findOne({ _id: 'shared' as never })).toMatchObject({ n: 6 });
      expect(await conn.db!.collection('outbox').countDocuments()).toBe(6);
    });

    it('outside a unit (a session of a plain transaction, or none) are written at once', async () => {
      const db = scoped({ notes }, inScope);
      await db.notes.leanInsert([{ _id: 'now', text: 'a', n: 0 }], { atCommit: true });
      expect(await conn.db!.collection('notes').countDocuments({ _id: 'now' as never })).toBe(1);
      await conn.transaction(async (session) => {
        await db.notes.leanInsert([{ _id: 'tx', text: 'a', n: 0 }], { session, atCommit: true });
        await db.notes.leanUpdateOneAtCommit({ _id: 'tx' }, { $set: { n: 5 } }, { session });
        expect(await conn.db!.collection('notes').findOne({ _id: 'tx' as never }, { session })).toMatchObject({ n: 5 });
      });
    });
  });
});
