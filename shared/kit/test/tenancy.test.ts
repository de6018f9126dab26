import mongoose from 'mongoose';
import { tenancyPlugin, TenancyError } from '../src';

// The plugin's hooks throw before anything is sent, so no database is needed here.
const conn = mongoose.createConnection();
const schema = new mongoose.Schema({ name: String });
schema.plugin(tenancyPlugin);
const Thing = conn.model('Thing', schema);
const scope = { teamId: 't1', mode: 'test' };

describe('tenancyPlugin', () => {
  it.each([
    ['find', () => Thing.find({ name: 'a' }).exec()],
    ['findOne without mode', () => Thing.findOne({ teamId: 't1' }).exec()],
    ['updateMany', () => Thing.updateMany({}, { name: 'b' }).exec()],
    ['deleteOne', () => Thing.deleteOne({ name: 'a' }).exec()],
    ['countDocuments', () => Thing.countDocuments({ mode: 'test' }).exec()],
    ['findOneAndUpdate with an operator as teamId', () => Thing.findOneAndUpdate({ teamId: { $ne: 'x' }, mode: 'test' }, {}).exec()],
    ['aggregate', () => Thing.aggregate([{ $match: { name: 'a' } }]).exec()],
    ['bulkWrite', () => Thing.bulkWrite([{ deleteMany: { filter: { name: 'a' } } }])],
  ])('refuses %s without the scope', async (_name, run) => {
    await expect(run()).rejects.toThrow(TenancyError);
  });

  it('requires teamId and mode on new documents', async () => {
    const err = await new Thing({ name: 'a' }).validate().catch((e: mongoose.Error.ValidationError) => e);
    expect(Object.keys(err?.errors ?? {}).sort()).toEqual(['mode', 'teamId']);
    await expect(new Thing({ name: 'a', ...scope }).validate()).resolves.toBeUndefined();
  });
});

afterAll(() => conn.close());
