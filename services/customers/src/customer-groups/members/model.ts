import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { Partition } from '@helpdesk/contracts';

/** A customer's membership of a group (a customer may belong to many groups). */
export interface MembershipDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  groupId: string;
  customerId: string;
  joinedGroupAt: Date;
}

const membershipSchema = new mongoose.Schema<MembershipDoc>(
  {
    _id: { type: String, required: true },
    groupId: { type: String, required: true },
    customerId: { type: String, required: true },
    joinedGroupAt: { type: Date, required: true },
  },
  { collection: 'group_memberships', versionKey: false, strict: 'throw' },
);
membershipSchema.plugin(tenancyPlugin);
membershipSchema.index({ teamId: 1, mode: 1, groupId: 1, customerId: 1 }, { unique: true });
membershipSchema.index({ teamId: 1, mode: 1, groupId: 1, joinedGroupAt: -1, customerId: -1 });
membershipSchema.index({ teamId: 1, mode: 1, customerId: 1 });

export type MembershipModel = mongoose.Model<MembershipDoc>;

export function membershipModel(conn: mongoose.Connection): MembershipModel {
  return (conn.models.GroupMembership as MembershipModel | undefined) ?? conn.model<MembershipDoc>('GroupMembership', membershipSchema);
}
