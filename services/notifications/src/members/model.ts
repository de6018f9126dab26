import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { Partition } from '@helpdesk/contracts';

/**
 * The team's members as this service knows them from the workspace service's `member.*` events: who
 * a `userId` names, who an `@mention` names, and their preferences. Members belong to the team, not
 * to a partition, so they are stored under the live scope (as the workspace service stores them).
 */
export interface TeamMemberDoc {
  /** The member id (`mem_…`). */
  _id: string;
  teamId: string;
  mode: Partition;
  /** The person's account id (a UUID). */
  userId: string;
  name: string;
  email: string;
  /** What an `@mention` of this member may be written as, lowercase: the email and the name without spaces. */
  handles: string[];
  boringMode: boolean;
  /** The member's own setting here (`PATCH /notifications/preferences`): an email for each new notification. */
  emailNotifications: boolean;
  /** A removed member keeps a tombstone, so that an event arriving late never brings them back. */
  removed: boolean;
  updatedAt: Date;
}

const teamMemberSchema = new mongoose.Schema<TeamMemberDoc>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    name: { type: String, required: true },
    email: { type: String, required: true },
    handles: { type: [String], default: [] },
    boringMode: { type: Boolean, required: true, default: false },
    emailNotifications: { type: Boolean, required: true, default: false },
    removed: { type: Boolean, required: true, default: false },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'team_members', versionKey: false, minimize: false, strict: 'throw' },
);
teamMemberSchema.plugin(tenancyPlugin);
teamMemberSchema.index({ teamId: 1, mode: 1, userId: 1 });
teamMemberSchema.index({ teamId: 1, mode: 1, handles: 1 });

export type TeamMemberModel = mongoose.Model<TeamMemberDoc>;

export function teamMemberModel(conn: mongoose.Connection): TeamMemberModel {
  return (conn.models.TeamMember as TeamMemberModel | undefined) ?? conn.model<TeamMemberDoc>('TeamMember', teamMemberSchema);
}
