/**
 * kit's data layer (docs/adr/0065): collections declared by kind, scoped handles that add the scope to
 * everything they send (mongoose queries and the driver fast paths alike), the named ways across
 * teams, and the types that keep a caller from naming the scope (the `@ts-expect-error` lines below
 * are checked by `npm run typecheck`: each fails the typecheck if what it marks ever compiles).
 */
import mongoose from 'mongoose';
import { startEmbeddedMongo, type EmbeddedMongo } from '@helpdesk/mongo-embedded';
import {
  acrossTeams,
  bulkWriteInScopes,
  describeCollections,
  pageOf,
  platform,
  platformWide,
  scoped,
  teamAndPartition,
  teamTenancyPlugin,
  teamWide,
  TenancyError,
  tenancyPlugin,
} from '../src';
import type { Partition } from '@helpdesk/contracts';

const A = '3f1c2a4e-8b7d-4c2a-9f1e-2b3c4d5e6f70';
const B = '3f1c2a4e-8b7d-4c2a-9f1e-2b3c4d5e6f71';
const aTest = { teamId: A, mode: 'test' as const };
const aLive = { teamId: A, mode: 'live' as const };
const bTest = { teamId: B, mode: 'test' as const };

interface NoteDoc { _id: string; teamId: string; mode: Partition; text: string; n: number }
interface FlagDoc { _id: string; teamId: string; mode: Partition; on: boolean }
interface RefDoc { _id: string; teamId: string; name: string }
interface HoursDoc { _id: string; tz: string }
interface LeaseDoc { _id: string; holder: string }

const noteSchema = new mongoose.Schema<NoteDoc>({ _id: String, text: String, n: Number }, { versionKey: false, collection: 'notes' });
noteSchema.plugin(tenancyPlugin);
const flagSchema = new mongoose.Schema<FlagDoc>({ _id: String, on: Boolean }, { versionKey: false, collection: 'flags' });
flagSchema.plugin(tenancyPlugin);
const refSchema = new mongoose.Schema<RefDoc>({ _id: String, name: String }, { versionKey: false, collection: 'refs' });
refSchema.plugin(teamTenancyPlugin, { key: 'teamId' });
const hoursSchema = new mongoose.Schema<HoursDoc>({ _id: String, tz: String }, { versionKey: false, collection: 'hours' });
hoursSchema.plugin(teamTenancyPlugin, { key: '_id' });
const leaseSchema = new mongoose.Schema<LeaseDoc>({ _id: String, holder: String }, { versionKey: false, collection: 'leases' });

const declare = (conn: mongoose.Connection) => ({
  notes: teamAndPartition(conn.model<NoteDoc>('Note', noteSchema)),
  flags: teamWide(conn.model<FlagDoc>('Flag', flagSchema)),
  refs: teamWide(conn.model<RefDoc>('Ref', refSchema), { key: 'teamId' }),
  hours: teamWide(conn.model<HoursDoc>('Hours', hoursSchema), { key: '_id' }),
  leases: platformWide(conn.model<LeaseDoc>('Lease', leaseSchema)),
});

let mongo: EmbeddedMongo;
let conn: mongoose.Connection;
let models: ReturnType<typeof declare>;
const raw = (name: string) => conn.db!.collection(name);

beforeAll(async () => {
  mongo = await startEmbeddedMongo();
  conn = await mongoose.createConnection(mongo.uri(), { dbName: 'data_layer' }).asPromise();
  models = declare(conn);
});
afterAll(async () => {
  await conn.close();
  await mongo.close();
});
beforeEach(async () => {
  for (const name of ['notes', 'flags', 'refs', 'hours', 'leases']) await raw(name).deleteMany({});
});

describe('declarations', () => {
  it('says what each collection is', () => {
    expect(describeCollections(models)).toEqual([
      { key: 'notes', kind: 'team-and-partition', name: 'notes', teamKey: null },
      { key: 'flags', kind: 'team-wide', name: 'flags', teamKey: 'live' },
      { key: 'refs', kind: 'team-wide', name: 'refs', teamKey: 'teamId' },
      { key: 'hours', kind: 'team-wide', name: 'hours', teamKey: '_id' },
      { key: 'leases', kind: 'platform-wide', name: 'leases', teamKey: null },
    ]);
  });

  it('refuses a team collection whose schema lacks the tenancy plugin of its kind', () => {
    const c = mongoose.createConnection();
    const bare = c.model('Bare', new mongoose.Schema({ _id: String }));
    expect(() => teamAndPartition(bare)).toThrow(TenancyError);
    expect(() => teamWide(bare)).toThrow(/tenancyPlugin/);
    expect(() => teamWide(c.model('Plugged', noteSchema.clone()), { key: 'teamId' })).toThrow(/teamTenancyPlugin/);
    expect(() => teamAndPartition(c.model('TeamOnly', refSchema.clone()))).toThrow(TenancyError);
    expect(() => platformWide(bare)).not.toThrow();
    void c.close();
  });
});

describe('a scoped handle', () => {
  it('adds the scope to every query, write, bulk write and aggregate, and a filter cannot widen it', async () => {
    const a = scoped(models, aTest).notes;
    const b = scoped(models, bTest).notes;
    await a.insertMany([{ _id: 'n1', text: 'a', n: 1 }]);
    await a.create([{ _id: 'n2', text: 'b', n: 2 }]);
    await b.create({ _id: 'n3', text: 'a', n: 3 });
    expect(await raw('notes').find({}, { sort: { _id: 1 } }).toArray()).toEqual([
      { _id: 'n1', text: 'a', n: 1, teamId: A, mode: 'test' },
      { _id: 'n2', text: 'b', n: 2, teamId: A, mode: 'test' },
      { _id: 'n3', text: 'a', n: 3, teamId: B, mode: 'test' },
    ]);
    expect((await a.find({ text: 'a' }).lean()).map((d) => d._id)).toEqual(['n1']);
    // A filter that names another scope is overridden, not obeyed.
    expect(await a.findOne({ _id: 'n3', teamId: B } as any).lean()).toBeNull();
    expect(await a.countDocuments()).toBe(2);
    expect(await a.distinct('text')).toEqual(['a', 'b']);
    expect(await a.exists({ _id: 'n3' })).toBeNull();
    await a.updateMany({}, { $inc: { n: 10 } });
    await a.bulkWrite([{ updateOne: { filter: { _id: 'n3' }, update: { $set: { text: 'hijacked' } } } }, { insertOne: { document: { _id: 'n4', text: 'c', n: 4 } } }]);
    expect(await raw('notes').findOne({ _id: 'n3' } as any)).toMatchObject({ text: 'a', n: 3 });
    expect(await raw('notes').findOne({ _id: 'n4' } as any)).toMatchObject({ teamId: A, mode: 'test' });
    // The scope joins the pipeline's leading $match, or is one.
    expect(await a.aggregate([{ $match: { n: { $gte: 11 } } }, { $sort: { _id: 1 } }, { $project: { n: 1 } }])).toEqual([{ _id: 'n1', n: 11 }, { _id: 'n2', n: 12 }]);
    expect((await a.aggregate([{ $group: { _id: null, total: { $sum: '$n' } } }]))[0].total).toBe(27);
    await a.replaceOne({ _id: 'n4' }, { _id: 'n4', text: 'replaced', n: 0 });
    expect(await raw('notes').findOne({ _id: 'n4' } as any)).toEqual({ _id: 'n4', text: 'replaced', n: 0, teamId: A, mode: 'test' });
    expect((await a.findOneAndUpdate({ _id: 'n4' }, { $set: { n: 5 } }, { returnDocument: 'after' }).lean())?.n).toBe(5);
    expect((await a.deleteMany({})).deletedCount).toBe(3);
    expect(await b.countDocuments()).toBe(1);
  });

  it("the driver fast paths answer what mongoose's lean answers, in the same scope", async () => {
    const a = scoped(models, aTest).notes;
    const live = scoped(models, aLive).notes;
    await a.leanInsert([{ _id: 'n1', text: 'a', n: 1 }, { _id: 'n2', text: 'b', n: 2 }]);
    await live.leanInsert([{ _id: 'n3', text: 'a', n: 3 }]);
    expect(await a.leanFindOne({ _id: 'n1' }, { projection: { teamId: 0, mode: 0 } })).toEqual(await a.findOne({ _id: 'n1' }, { teamId: 0, mode: 0 }).lean());
    expect(await a.leanFindOne({ _id: 'n3' })).toBeNull();
    expect(await a.leanFind({ text: 'a', mode: 'live' } as any)).toEqual([expect.objectContaining({ _id: 'n1', mode: 'test' })]);
    expect(await live.leanCount({})).toBe(1);
    expect(await a.leanPage({}, { page: 2, pageSize: 1 }, { sort: { _id: 1 }, projection: { text: 1 } })).toEqual({ rows: [{ _id: 'n2', text: 'b' }], pagination: pageOf(2, 1, 2) });
    expect(await a.leanFindOneAndUpdate<NoteDoc>({ _id: 'n3' }, { $set: { n: 99 } })).toBeNull();
    expect(await a.leanFindOneAndUpdate<NoteDoc>({ _id: 'n9' }, { $setOnInsert: { text: 'new', n: 0 } }, { upsert: true })).toEqual({ _id: 'n9', text: 'new', n: 0, teamId: A, mode: 'test' });
    expect((await a.leanUpdateOne({ _id: 'n3' }, { $set: { n: -2 } })).matchedCount).toBe(0);
    expect((await a.leanUpdateOne({ _id: 'n9' }, { $inc: { n: 5 } })).modifiedCount).toBe(1);
    expect(await raw('notes').findOne({ _id: 'n9' } as any)).toMatchObject({ n: 5, teamId: A, mode: 'test' });
    await a.leanBulkWrite([{ updateOne: { filter: { _id: 'n3' }, update: { $set: { n: -1 } } } }, { deleteOne: { filter: { _id: 'n2' } } }]);
    expect(await raw('notes').findOne({ _id: 'n3' } as any)).toMatchObject({ n: 3 });
    expect(await raw('notes').countDocuments({ _id: 'n2' } as any)).toBe(0);
  });

  it('of a team-wide collection takes the team only, and stores it as the collection declares', async () => {
    const team = scoped(models, { teamId: A });
    await team.flags.create([{ _id: 'f1', on: true }]);
    await team.refs.updateOne({ _id: 'm1' }, { $set: { name: 'Ada' } }, { upsert: true });
    await team.hours.updateOne({}, { $set: { tz: 'Europe/Berlin' } }, { upsert: true });
    expect(await raw('flags').findOne({})).toEqual({ _id: 'f1', on: true, teamId: A, mode: 'live' });
    expect(await raw('refs').findOne({})).toEqual({ _id: 'm1', name: 'Ada', teamId: A });
    expect(await raw('hours').findOne({})).toEqual({ _id: A, tz: 'Europe/Berlin' });
    // A request's scope reaches the same rows, whichever partition it is in.
    for (const scope of [aTest, aLive]) {
      const db = scoped(models, scope);
      expect(await db.flags.countDocuments()).toBe(1);
      expect((await db.refs.findOne({ _id: 'm1' }).lean())?.name).toBe('Ada');
      expect((await db.hours.findOne({}).lean())?.tz).toBe('Europe/Berlin');
    }
    const other = scoped(models, { teamId: B });
    expect(await other.flags.countDocuments()).toBe(0);
    expect(await other.refs.findOne({ _id: 'm1' }).lean()).toBeNull();
    expect(await other.hours.findOne({}).lean()).toBeNull();
  });

  it('cannot be had without a scope', () => {
    expect(() => scoped(models, undefined as any)).toThrow(TenancyError);
    expect(() => scoped(models, { mode: 'test' } as any)).toThrow(TenancyError);
    // A team's scope alone opens no partition's collection.
    expect((scoped(models, { teamId: A }) as any).notes).toBeUndefined();
    expect((scoped(models, aTest) as any).leases).toBeUndefined();
  });
});

describe('the ways across teams, each named', () => {
  it('bulkWriteInScopes: one bulk write, each operation in its own scope', async () => {
    await scoped(models, aTest).notes.create([{ _id: 'n1', text: 'a', n: 1 }]);
    await scoped(models, bTest).notes.create([{ _id: 'n2', text: 'b', n: 1 }]);
    await scoped(models, { teamId: A }).flags.create([{ _id: 'f1', on: false }]);
    await bulkWriteInScopes(models.notes, [
      { scope: aTest, updateOne: { filter: { _id: 'n1' }, update: { $inc: { n: 1 } } } },
      { scope: bTest, updateOne: { filter: { _id: 'n2' }, update: { $inc: { n: 1 } } } },
      { scope: aTest, updateOne: { filter: { _id: 'n2' }, update: { $inc: { n: 100 } } } }, // not in A's partition: nothing
      { scope: aLive, insertOne: { document: { _id: 'n3', text: 'c', n: 0 } } },
    ]);
    expect(await raw('notes').find({}, { sort: { _id: 1 }, projection: { n: 1, teamId: 1, mode: 1 } }).toArray()).toEqual([
      { _id: 'n1', n: 2, teamId: A, mode: 'test' },
      { _id: 'n2', n: 2, teamId: B, mode: 'test' },
      { _id: 'n3', n: 0, teamId: A, mode: 'live' },
    ]);
    await bulkWriteInScopes(models.flags, [{ scope: aTest, updateOne: { filter: { _id: 'f1' }, update: { $set: { on: true } } } }]);
    expect(await raw('flags').findOne({})).toMatchObject({ on: true, mode: 'live' });
  });

  it("acrossTeams gives the driver's collection; platform the platform-wide models", async () => {
    await scoped(models, aTest).notes.create([{ _id: 'n1', text: 'a', n: 1 }]);
    await scoped(models, bTest).notes.create([{ _id: 'n2', text: 'a', n: 1 }]);
    expect(await acrossTeams(models).notes.countDocuments({ text: 'a' })).toBe(2);
    await platform(models).leases.create({ _id: 'scan', holder: 'me' });
    expect(await platform(models).leases.findOne({ _id: 'scan' }).lean()).toMatchObject({ holder: 'me' });
    expect(Object.keys(acrossTeams(models))).toEqual(['notes', 'flags', 'refs', 'hours']);
    expect(Object.keys(platform(models))).toEqual(['leases']);
  });
});

describe('the tenancy plugins stay underneath', () => {
  it('refuse a query without its scope on the models themselves', async () => {
    const Note = conn.models.Note!;
    const Ref = conn.models.Ref!;
    const Hours = conn.models.Hours!;
    await expect(Note.find({ teamId: A }).exec()).rejects.toThrow(TenancyError);
    await expect(Ref.find({ name: 'x' }).exec()).rejects.toThrow(/without its team \(teamId\)/);
    await expect(Hours.updateOne({ tz: 'x' }, { $set: { tz: 'y' } }).exec()).rejects.toThrow(/without its team \(_id\)/);
    await expect(Ref.aggregate([{ $match: { name: 'x' } }]).exec()).rejects.toThrow(TenancyError);
    await expect(Ref.find({ teamId: A }).exec()).resolves.toEqual([]);
  });
});

/** Type-level: what a service cannot write. Never run; `npm run typecheck` checks each line fails to compile. */
export function typeChecks(m: ReturnType<typeof declare>) {
  const db = scoped(m, aTest);
  // @ts-expect-error the scope is the layer's to add: a filter cannot name it
  void db.notes.find({ teamId: B });
  // @ts-expect-error nor can an update's filter
  void db.notes.updateOne({ _id: 'n1', mode: 'live' }, { $set: { text: 'x' } });
  // @ts-expect-error nor a driver fast path's
  void db.notes.leanFind({ teamId: B });
  // @ts-expect-error nor a spread scope
  void db.notes.findOne({ _id: 'n1', ...bTest });
  // @ts-expect-error a declared collection runs no query: only a handle does
  void m.notes.find({});
  // @ts-expect-error a handle cannot be had without a scope
  void scoped(m);
  // @ts-expect-error a team's scope alone gives no partition's collection
  void scoped(m, { teamId: A }).notes;
  // @ts-expect-error platform-wide collections are not scoped
  void db.leases;
  // @ts-expect-error nor reached across teams
  void acrossTeams(m).leases;
  // @ts-expect-error a bulk operation across scopes names its scope
  void bulkWriteInScopes(m.notes, [{ updateOne: { filter: { _id: 'n1' }, update: {} } }]);
}
