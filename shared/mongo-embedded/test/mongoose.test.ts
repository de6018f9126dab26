import mongoose, { Connection, Schema } from 'mongoose';
import { startTarget, Target } from './target';

let target: Target;
let conn: Connection;

const userSchema = new Schema(
  { email: { type: String, required: true, unique: true }, name: String, points: { type: Number, default: 0 }, tags: [String] },
  { timestamps: true },
);
const membershipSchema = new Schema({ team: String, user: String, role: String });
membershipSchema.index({ team: 1, user: 1 }, { unique: true });

beforeAll(async () => {
  target = await startTarget();
  conn = await mongoose.createConnection(target.uri('mongoose_rt')).asPromise();
});

afterAll(async () => {
  await conn?.close();
  await target?.close();
});

describe('mongoose over the wire protocol', () => {
  it('round-trips a model: create, find, update, delete', async () => {
    const User = conn.model('User', userSchema);
    await User.init();
    const created = await User.create({ email: 'ada@example.com', name: 'Ada', tags: ['a', 'b'] });
    expect(created._id).toBeDefined();
    const found = await User.findOne({ email: 'ada@example.com' }).lean();
    expect(found).toMatchObject({ email: 'ada@example.com', name: 'Ada', points: 0, tags: ['a', 'b'] });
    expect(found!.createdAt).toBeInstanceOf(Date);
    expect(Object.keys(found!)[0]).toBe('_id');

    const updated = await User.findOneAndUpdate({ email: 'ada@example.com' }, { $inc: { points: 5 } }, { returnDocument: 'after' }).lean();
    expect(updated!.points).toBe(5);
    const res = await User.updateMany({}, { $push: { tags: 'c' } });
    expect(res).toMatchObject({ acknowledged: true, matchedCount: 1, modifiedCount: 1 });
    expect(await User.countDocuments()).toBe(1);
    expect(await User.estimatedDocumentCount()).toBe(1);
    const byId = await User.findById(created._id);
    expect(byId!.tags).toEqual(['a', 'b', 'c']);
    byId!.name = 'Ada L.';
    await byId!.save();
    expect((await User.findById(created._id).lean())!.name).toBe('Ada L.');
    const del = await User.deleteOne({ _id: created._id });
    expect(del.deletedCount).toBe(1);
    expect(await User.countDocuments()).toBe(0);
  });

  it('rejects duplicates with E11000, keyPattern and keyValue (single and compound)', async () => {
    const User = conn.model('User', userSchema);
    await User.init();
    await User.create({ email: 'dup@example.com' });
    const e1: any = await User.create({ email: 'dup@example.com' }).catch((e) => e);
    expect(e1.code).toBe(11000);
    expect(e1.keyPattern).toEqual({ email: 1 });
    expect(e1.keyValue).toEqual({ email: 'dup@example.com' });
    expect(e1.message).toMatch(/E11000 duplicate key error collection: .*users index: email_1 dup key/);

    const M = conn.model('Membership', membershipSchema);
    await M.init();
    await M.create({ team: 't1', user: 'u1', role: 'agent' });
    await M.create({ team: 't1', user: 'u2', role: 'agent' });
    await M.create({ team: 't2', user: 'u1', role: 'agent' });
    const e2: any = await M.create({ team: 't1', user: 'u1', role: 'admin' }).catch((e) => e);
    expect(e2.code).toBe(11000);
    expect(e2.keyPattern).toEqual({ team: 1, user: 1 });
    expect(e2.keyValue).toEqual({ team: 't1', user: 'u1' });
    const e3: any = await M.updateOne({ team: 't2', user: 'u1' }, { $set: { team: 't1' } }).catch((e) => e);
    expect(e3.code).toBe(11000);
  });

  it('commits a transaction atomically (conn.transaction)', async () => {
    const Order = conn.model('Order', new Schema({ ref: String, total: Number }));
    const Outbox = conn.model('Outbox', new Schema({ type: String, ref: String }));
    await Order.init();
    await Outbox.init();
    await conn.transaction(async (session) => {
      await Order.create([{ ref: 'o1', total: 10 }], { session });
      await Outbox.create([{ type: 'order.created', ref: 'o1' }], { session });
      expect(await Order.countDocuments({ ref: 'o1' }).session(session)).toBe(1);
      // Not visible outside the transaction before commit.
      expect(await Order.countDocuments({ ref: 'o1' })).toBe(0);
    });
    expect(await Order.countDocuments({ ref: 'o1' })).toBe(1);
    expect(await Outbox.countDocuments({ ref: 'o1' })).toBe(1);
  });

  it('leaves nothing behind when a transaction aborts', async () => {
    const Order = conn.model('Order');
    const Outbox = conn.model('Outbox');
    await expect(
      conn.transaction(async (session) => {
        await Order.create([{ ref: 'o2', total: 20 }], { session });
        await Outbox.create([{ type: 'order.created', ref: 'o2' }], { session });
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await Order.countDocuments({ ref: 'o2' })).toBe(0);
    expect(await Outbox.countDocuments({ ref: 'o2' })).toBe(0);
  });

  it('rolls back the whole transaction on a duplicate key inside it', async () => {
    const User = conn.model('User', userSchema);
    const Outbox = conn.model('Outbox');
    await User.create({ email: 'taken@example.com' });
    const e: any = await conn
      .transaction(async (session) => {
        await Outbox.create([{ type: 'user.created', ref: 'x' }], { session });
        await User.create([{ email: 'taken@example.com' }], { session });
      })
      .catch((x) => x);
    expect(e.code).toBe(11000);
    expect(await Outbox.countDocuments({ ref: 'x' })).toBe(0);
  });

  it('supports aggregate, bulkWrite, distinct and syncIndexes', async () => {
    const Sale = conn.model('Sale', new Schema({ team: { type: String, index: true }, amount: Number }));
    await Sale.init();
    await Sale.insertMany([
      { team: 'a', amount: 1 },
      { team: 'a', amount: 2 },
      { team: 'b', amount: 5 },
    ]);
    const agg = await Sale.aggregate([{ $group: { _id: '$team', total: { $sum: '$amount' } } }, { $sort: { _id: 1 } }]);
    expect(agg).toEqual([
      { _id: 'a', total: 3 },
      { _id: 'b', total: 5 },
    ]);
    const bw = await Sale.bulkWrite([
      { insertOne: { document: { team: 'c', amount: 7 } } },
      { updateOne: { filter: { team: 'b' }, update: { $inc: { amount: 1 } } } },
      { updateOne: { filter: { team: 'z' }, update: { $set: { amount: 0 } }, upsert: true } },
      { deleteMany: { filter: { team: 'a' } } },
    ]);
    expect(bw.insertedCount).toBe(1);
    expect(bw.modifiedCount).toBe(1);
    expect(bw.upsertedCount).toBe(1);
    expect(bw.deletedCount).toBe(2);
    expect((await Sale.distinct('team')).sort()).toEqual(['b', 'c', 'z']);
    const dropped = await Sale.syncIndexes();
    expect(dropped).toEqual([]);
    const idx = await Sale.listIndexes();
    expect(idx.map((i: any) => i.name).sort()).toEqual(['_id_', 'team_1']);
  });

  it('connects with a plain mongodb://host:port/db URL (replica-set discovery) and runs a transaction', async () => {
    const plain = target.uri('mongoose_plain').replace(/[?&]directConnection=true/, '');
    const c2 = await mongoose.createConnection(plain).asPromise();
    try {
      const M = c2.model('Plain', new Schema({ a: Number }));
      await M.create({ a: 1 });
      await c2.transaction(async (session) => {
        await M.create([{ a: 2 }], { session });
      });
      expect(await M.countDocuments()).toBe(2);
      await c2.db!.dropDatabase();
    } finally {
      await c2.close();
    }
  });

  it('applies sanitizeFilter: operator objects become literal $eq values', async () => {
    const Thing = conn.model('Thing', new Schema({ key: String, data: Schema.Types.Mixed }));
    await Thing.create([{ key: 'a', data: 1 }, { key: 'b', data: { $ne: 1 } as any }].slice(0, 1));
    const hits = await Thing.find({ data: { $ne: 1 } } as any).setOptions({ sanitizeFilter: true }).lean();
    expect(hits).toEqual([]);
    const all = await Thing.find({ data: { $ne: 2 } } as any).lean();
    expect(all.map((t) => t.key)).toEqual(['a']);
  });
});
