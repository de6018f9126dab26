import mongoose from 'mongoose';
import { FEATURE_FLAGS, type FeatureFlag, type Partition } from '@helpdesk/contracts';
import { tenancyPlugin } from '@helpdesk/kit';

/**
 * The team's members and game switches as this service knows them from the workspace service's
 * events. Both belong to the team, not to a partition: stored under the live scope, as the
 * workspace stores them, and shared by both game partitions.
 */
export interface GameMemberDoc {
  /** The member id (`mem_…`). */
  _id: string;
  teamId: string;
  mode: Partition;
  /** The person's account id (a UUID), lowercase. */
  userId: string;
  name: string;
  avatarUrl: string | null;
  boringMode: boolean;
  /** A removed member keeps a tombstone, so that an event arriving late never brings them back. */
  removed: boolean;
  updatedAt: Date;
}

const memberSchema = new mongoose.Schema<GameMemberDoc>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    name: { type: String, required: true },
    avatarUrl: { type: String, default: null },
    boringMode: { type: Boolean, required: true, default: false },
    removed: { type: Boolean, required: true, default: false },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'members', versionKey: false, minimize: false, strict: 'throw' },
);
memberSchema.plugin(tenancyPlugin);
memberSchema.index({ teamId: 1, mode: 1, userId: 1 });

export type GameMemberModel = mongoose.Model<GameMemberDoc>;
export const gameMemberModel = (conn: mongoose.Connection): GameMemberModel =>
  (conn.models.GameMember as GameMemberModel | undefined) ?? conn.model<GameMemberDoc>('GameMember', memberSchema);

/** The team's feature flags (every one true until `feature_flags.updated` says otherwise). */
export interface TeamSwitchesDoc {
  /** The team id. */
  _id: string;
  teamId: string;
  mode: Partition;
  flags: Record<FeatureFlag, boolean>;
  updatedAt: Date;
}

const switchesSchema = new mongoose.Schema<TeamSwitchesDoc>(
  {
    _id: { type: String, required: true },
    flags: { type: Object, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'team_switches', versionKey: false, minimize: false, strict: 'throw' },
);
switchesSchema.plugin(tenancyPlugin);

export type TeamSwitchesModel = mongoose.Model<TeamSwitchesDoc>;
export const teamSwitchesModel = (conn: mongoose.Connection): TeamSwitchesModel =>
  (conn.models.TeamSwitches as TeamSwitchesModel | undefined) ?? conn.model<TeamSwitchesDoc>('TeamSwitches', switchesSchema);

export const ALL_ON = Object.fromEntries(FEATURE_FLAGS.map((f) => [f, true])) as Record<FeatureFlag, boolean>;
