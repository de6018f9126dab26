import mongoose from 'mongoose';
import type { BossDifficulty, Partition } from '@helpdesk/contracts';
import { tenancyPlugin } from '@helpdesk/kit';

export interface BossParticipant {
  memberId: string;
  name: string;
  damage: number;
  hits: number;
  lastHitAt: Date;
}

/** One boss battle in one team's partition. */
export interface BossDoc {
  /** `boss_…` */
  _id: string;
  teamId: string;
  mode: Partition;
  /** `<teamId>:<mode>` while active, the boss id once it ended: the unique index allows one active boss per team and partition. */
  activeKey: string;
  status: 'active' | 'defeated' | 'escaped';
  name: string;
  level: number;
  difficulty: BossDifficulty;
  maxHealth: number;
  currentHealth: number;
  shield: { active: boolean; hitsRemaining: number };
  /** The shield rises again once, when the boss enters phase 2. */
  shieldRaisedInPhase2: boolean;
  enraged: boolean;
  totalHealed: number;
  /** Regeneration is counted in whole minutes from here (the last hit, or the last heal). */
  lastHealAt: Date;
  participants: BossParticipant[];
  totalDamage: number;
  spawnedAt: Date;
  escapesAt: Date;
  endedAt: Date | null;
  killedBy: string | null;
  /** Bumped by every write: a hit applies only to the state it read (retried otherwise). */
  rev: number;
}

const bossSchema = new mongoose.Schema<BossDoc>(
  {
    _id: { type: String, required: true },
    activeKey: { type: String, required: true },
    status: { type: String, required: true },
    name: { type: String, required: true },
    level: { type: Number, required: true },
    difficulty: { type: String, required: true },
    maxHealth: { type: Number, required: true },
    currentHealth: { type: Number, required: true },
    shield: { type: Object, required: true },
    shieldRaisedInPhase2: { type: Boolean, required: true },
    enraged: { type: Boolean, required: true },
    totalHealed: { type: Number, required: true },
    lastHealAt: { type: Date, required: true },
    participants: { type: [Object], required: true, default: [] },
    totalDamage: { type: Number, required: true },
    spawnedAt: { type: Date, required: true },
    escapesAt: { type: Date, required: true },
    endedAt: { type: Date, default: null },
    killedBy: { type: String, default: null },
    rev: { type: Number, required: true },
  },
  { collection: 'bosses', versionKey: false, minimize: false, strict: 'throw' },
);
bossSchema.plugin(tenancyPlugin);
bossSchema.index({ activeKey: 1 }, { unique: true });
bossSchema.index({ teamId: 1, mode: 1, spawnedAt: -1 });

export type BossModel = mongoose.Model<BossDoc>;
export const bossModel = (conn: mongoose.Connection): BossModel => (conn.models.Boss as BossModel | undefined) ?? conn.model<BossDoc>('Boss', bossSchema);

/** Each ticket hits a boss once, ever, in its partition (the unique index is the guarantee). */
export interface BossHitDoc {
  _id: mongoose.Types.ObjectId;
  teamId: string;
  mode: Partition;
  ticketId: string;
  bossId: string;
  memberId: string;
  damage: number;
  at: Date;
}
const hitSchema = new mongoose.Schema<BossHitDoc>(
  {
    ticketId: { type: String, required: true },
    bossId: { type: String, required: true },
    memberId: { type: String, required: true },
    damage: { type: Number, required: true },
    at: { type: Date, required: true },
  },
  { collection: 'boss_hits', versionKey: false, strict: 'throw' },
);
hitSchema.plugin(tenancyPlugin);
hitSchema.index({ teamId: 1, mode: 1, ticketId: 1 }, { unique: true });
export type BossHitModel = mongoose.Model<BossHitDoc>;
export const bossHitModel = (conn: mongoose.Connection): BossHitModel => (conn.models.BossHit as BossHitModel | undefined) ?? conn.model<BossHitDoc>('BossHit', hitSchema);
