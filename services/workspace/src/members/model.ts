import mongoose from 'mongoose';
import { ROLES, type Role, type Partition } from '@helpdesk/contracts';
import { tenancyPlugin } from '@helpdesk/kit';

/** A member of a team. `_id` is the public `mem_…` id; team-wide (../collections.ts). */
export interface MemberDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  /** The person's account id (a UUID), the same in every team they join with this email. */
  userId: string;
  name: string;
  email: string;
  /** Lowercase copy of `email`: unique per team. */
  emailLower: string;
  avatarUrl: string | null;
  role: Role;
  preferences: { boringMode: boolean };
  /** The live partition's game (the team's game, docs/adr/0033), from `game.player.progressed`; 1 and 0 until then. */
  level: number;
  xp: number;
  /** When the game's progress now on the member (`level`, `xp`) occurred: older progress arriving later is not written (consumers/game.ts). */
  progressAt?: Date | null;
  /** The same for the test partition's game, which test keys see (absent on members from before: 1 and 0). */
  testLevel?: number;
  testXp?: number;
  testProgressAt?: Date | null;
  joinedAt: Date;
  updatedAt: Date;
}

const memberSchema = new mongoose.Schema<MemberDoc>(
  {
    _id: { type: String, required: true },
    userId: { type: String, required: true },
    name: { type: String, required: true },
    email: { type: String, required: true },
    emailLower: { type: String, required: true },
    avatarUrl: { type: String, default: null },
    role: { type: String, enum: ROLES, required: true },
    preferences: { boringMode: { type: Boolean, required: true, default: false } },
    level: { type: Number, required: true, default: 1 },
    xp: { type: Number, required: true, default: 0 },
    progressAt: { type: Date, default: null },
    testLevel: { type: Number, default: 1 },
    testXp: { type: Number, default: 0 },
    testProgressAt: { type: Date, default: null },
    joinedAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'members', versionKey: false, minimize: false, strict: 'throw' },
);
memberSchema.plugin(tenancyPlugin);
memberSchema.index({ teamId: 1, mode: 1, emailLower: 1 }, { unique: true });
memberSchema.index({ teamId: 1, mode: 1, joinedAt: 1, _id: 1 });
memberSchema.index({ teamId: 1, mode: 1, role: 1 });
// A sign-in link request names an email, not a team: its memberships across teams (docs/adr/0068).
memberSchema.index({ emailLower: 1 });

export type MemberModel = mongoose.Model<MemberDoc>;

export function memberModel(conn: mongoose.Connection): MemberModel {
  return (conn.models.Member as MemberModel | undefined) ?? conn.model<MemberDoc>('Member', memberSchema);
}
