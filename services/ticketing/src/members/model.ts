import mongoose from 'mongoose';
import { teamTenancyPlugin } from '@helpdesk/kit';

/**
 * Ticketing's projection of each team's members (both partitions: members are per team), fed by
 * `member.*` events: what assignment checks an id against. `removed` is a tombstone.
 */
export interface MemberRefDoc {
  _id: string;
  teamId: string;
  name: string;
  removed: boolean;
}

const schema = new mongoose.Schema<MemberRefDoc>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    removed: { type: Boolean, required: true, default: false },
  },
  { collection: 'member_refs', versionKey: false, strict: 'throw' },
);
schema.plugin(teamTenancyPlugin, { key: 'teamId' });
schema.index({ teamId: 1, _id: 1 });

export type MemberRefModel = mongoose.Model<MemberRefDoc>;

export function memberRefModel(conn: mongoose.Connection): MemberRefModel {
  return (conn.models.MemberRef as MemberRefModel | undefined) ?? conn.model<MemberRefDoc>('MemberRef', schema);
}
