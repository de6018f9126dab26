import mongoose from 'mongoose';
import { SKILL_KEYS, type SkillKey, type XpReason, type Partition } from '@helpdesk/contracts';
import { tenancyPlugin } from '@helpdesk/kit';

/** A member's game state in one team's partition. */
export interface PlayerDoc {
  _id: mongoose.Types.ObjectId;
  teamId: string;
  mode: Partition;
  memberId: string;
  /** The season `seasonXp` belongs to; an older one is rolled over at the next write (and shown as 0 before). */
  seasonId: string;
  seasonXp: number;
  lifetimeXp: number;
  gold: number;
  prestigeLevel: number;
  streak: { current: number; max: number; lastDayId: string | null };
  stats: {
    ticketsClosed: number;
    bossesDefeated: number;
    finalBlows: number;
    questsCompleted: number;
    goldSlaTickets: number;
    kudosGiven: number;
    puzzlesSolved: number;
  };
  /** Skill points earned by level-ups (at most 20, kept across seasons) and not spent yet. */
  skillPointsEarned: number;
  skillPointsAvailable: number;
  skills: Record<SkillKey, number>;
  cosmetics: { owned: string[]; avatarFrame: string | null; victoryMessage: string | null };
  achievements: { key: string; unlockedAt: Date }[];
  pastSeasons: { seasonId: string; level: number; xp: number }[];
  createdAt: Date;
}

export const emptyStats = () => ({ ticketsClosed: 0, bossesDefeated: 0, finalBlows: 0, questsCompleted: 0, goldSlaTickets: 0, kudosGiven: 0, puzzlesSolved: 0 });
export const noSkills = () => Object.fromEntries(SKILL_KEYS.map((k) => [k, 0])) as Record<SkillKey, number>;

const playerSchema = new mongoose.Schema<PlayerDoc>(
  {
    memberId: { type: String, required: true },
    seasonId: { type: String, required: true },
    seasonXp: { type: Number, required: true, default: 0 },
    lifetimeXp: { type: Number, required: true, default: 0 },
    gold: { type: Number, required: true, default: 0 },
    prestigeLevel: { type: Number, required: true, default: 0 },
    streak: { type: Object, required: true, default: () => ({ current: 0, max: 0, lastDayId: null }) },
    stats: { type: Object, required: true, default: emptyStats },
    skillPointsEarned: { type: Number, required: true, default: 0 },
    skillPointsAvailable: { type: Number, required: true, default: 0 },
    skills: { type: Object, required: true, default: noSkills },
    cosmetics: { type: Object, required: true, default: () => ({ owned: [], avatarFrame: null, victoryMessage: null }) },
    achievements: { type: [Object], required: true, default: [] },
    pastSeasons: { type: [Object], required: true, default: [] },
    createdAt: { type: Date, required: true },
  },
  { collection: 'players', versionKey: false, minimize: false, strict: 'throw' },
);
playerSchema.plugin(tenancyPlugin);
playerSchema.index({ teamId: 1, mode: 1, memberId: 1 }, { unique: true });

export type PlayerModel = mongoose.Model<PlayerDoc>;
export const playerModel = (conn: mongoose.Connection): PlayerModel => (conn.models.Player as PlayerModel | undefined) ?? conn.model<PlayerDoc>('Player', playerSchema);

/** What a ledger row counts: a payment (its reason) or a deed quests count (`boss_hit`, `kudos_given`). */
export type LedgerKind = XpReason | 'boss_hit' | 'kudos_given';

/** Every payment and every deed, one row each: quest progress counts it; standings keep its running totals. */
export interface LedgerDoc {
  _id: mongoose.Types.ObjectId;
  teamId: string;
  mode: Partition;
  memberId: string;
  kind: LedgerKind;
  xp: number;
  gold: number;
  damage: number;
  tickets: number;
  at: Date;
  seasonId: string;
  weekId: string;
  dayId: string;
}

const ledgerSchema = new mongoose.Schema<LedgerDoc>(
  {
    memberId: { type: String, required: true },
    kind: { type: String, required: true },
    xp: { type: Number, required: true },
    gold: { type: Number, required: true },
    damage: { type: Number, required: true },
    tickets: { type: Number, required: true },
    at: { type: Date, required: true },
    seasonId: { type: String, required: true },
    weekId: { type: String, required: true },
    dayId: { type: String, required: true },
  },
  { collection: 'ledger', versionKey: false, minimize: false, strict: 'throw' },
);
ledgerSchema.plugin(tenancyPlugin);
// Quest progress counts a member's rows of one kind in a day or a week.
ledgerSchema.index({ teamId: 1, mode: 1, memberId: 1, kind: 1, dayId: 1 });
ledgerSchema.index({ teamId: 1, mode: 1, memberId: 1, kind: 1, weekId: 1 });

export type LedgerModel = mongoose.Model<LedgerDoc>;
export const ledgerModel = (conn: mongoose.Connection): LedgerModel => (conn.models.Ledger as LedgerModel | undefined) ?? conn.model<LedgerDoc>('Ledger', ledgerSchema);

/** A ticket pays once, ever: one row per ticket per partition (the unique index is the guarantee). */
export interface PayoutDoc {
  _id: mongoose.Types.ObjectId;
  teamId: string;
  mode: Partition;
  ticketId: string;
  memberId: string;
  paidAt: Date;
}
const payoutSchema = new mongoose.Schema<PayoutDoc>(
  { ticketId: { type: String, required: true }, memberId: { type: String, required: true }, paidAt: { type: Date, required: true } },
  { collection: 'ticket_payouts', versionKey: false, strict: 'throw' },
);
payoutSchema.plugin(tenancyPlugin);
payoutSchema.index({ teamId: 1, mode: 1, ticketId: 1 }, { unique: true });
export type PayoutModel = mongoose.Model<PayoutDoc>;
export const payoutModel = (conn: mongoose.Connection): PayoutModel => (conn.models.Payout as PayoutModel | undefined) ?? conn.model<PayoutDoc>('Payout', payoutSchema);

/** A member's running totals for one season or ISO week (`periodId`): what the leaderboards read, one indexed sort. */
export interface StandingDoc {
  _id: mongoose.Types.ObjectId;
  teamId: string;
  mode: Partition;
  memberId: string;
  periodId: string;
  xp: number;
  tickets: number;
  damage: number;
}
const standingSchema = new mongoose.Schema<StandingDoc>(
  {
    memberId: { type: String, required: true },
    periodId: { type: String, required: true },
    xp: { type: Number, required: true, default: 0 },
    tickets: { type: Number, required: true, default: 0 },
    damage: { type: Number, required: true, default: 0 },
  },
  { collection: 'standings', versionKey: false, strict: 'throw' },
);
standingSchema.plugin(tenancyPlugin);
standingSchema.index({ teamId: 1, mode: 1, periodId: 1, memberId: 1 }, { unique: true });
for (const field of ['xp', 'tickets', 'damage']) standingSchema.index({ teamId: 1, mode: 1, periodId: 1, [field]: -1 });
export type StandingModel = mongoose.Model<StandingDoc>;
export const standingModel = (conn: mongoose.Connection): StandingModel =>
  (conn.models.Standing as StandingModel | undefined) ?? conn.model<StandingDoc>('Standing', standingSchema);
