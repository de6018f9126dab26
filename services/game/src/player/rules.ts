import type mongoose from 'mongoose';
import type { FeatureFlag, XpReason } from '@helpdesk/contracts';
import { scoped, type Emit, type Scope } from '@helpdesk/kit';
import type { Clock } from '@helpdesk/kit';
import type { GameMemberRules } from '../members/rules';
import type { GameModels } from '../collections';
import { updates } from '../lean';
import { dayIdOf, seasonOf, weekIdOf } from '../seasons/calendar';
import { achievementsEarned, awardStep, completesOn, newPlayerFields, questsCounting, rolloverOf } from './apply';
import type { LedgerKind, PlayerDoc } from './model';
import { levelOf } from './progression';

export interface Award {
  reason: XpReason;
  /** XP before the prestige bonus (award adds it). */
  xp: number;
  gold: number;
  breakdown?: Record<string, number>;
  /** Counters of `stats` to add to in the same write. */
  stats?: Partial<PlayerDoc['stats']>;
  /** Boss damage this payment is for (leaderboard), if any. */
  damage?: number;
}

type Flags = Record<FeatureFlag, boolean>;

/** Every change of a player: loading (with the season rollover), paying, counting deeds, achievements and quests. */
export function playerRules({ models, members, clock }: { models: GameModels; members: GameMemberRules; clock: Clock }) {
  const db = (scope: Scope) => scoped(models, scope);

  /** The member's player in this partition (created at first use), rolled over to the current season. */
  async function load(scope: Scope, memberId: string, session: mongoose.ClientSession, emit: Emit): Promise<PlayerDoc> {
    const season = seasonOf(clock.now());
    const Players = db(scope).players;
    // One command: created at first use, and read back as it is now.
    const p = (await Players.leanFindOneAndUpdate<PlayerDoc>({ memberId }, { $setOnInsert: newPlayerFields(season.id, clock.now()) }, { session, upsert: true }))!;
    if (p.seasonId === season.id) return p;
    // Season rollover: level and season XP start again; everything else stays.
    const { finalLevel, past } = rolloverOf(p);
    await Players.updateOne(
      { memberId, seasonId: p.seasonId },
      { $set: { seasonId: season.id, seasonXp: 0 }, $push: { pastSeasons: past } },
      { session },
    );
    emit({ type: 'game.season.rolled_over', data: { memberId, fromSeasonId: p.seasonId, toSeasonId: season.id, finalLevel, finalXp: p.seasonXp } });
    emit({ type: 'game.player.progressed', data: { memberId, seasonId: season.id, level: 1, xp: 0 } });
    return (await Players.findOne({ memberId }).session(session).lean<PlayerDoc>())!;
  }

  /**
   * One ledger row, and the running standings of its season and ISO week in one command; then the
   * quests that count its kind and just reached their target are announced. Closed tickets are not
   * recorded here: the ticket batch pays them and counts their quests (tickets/batch.ts, docs/adr/0047).
   * `flags`: the team's switches when the caller read them already (read here otherwise, only if a
   * quest counts the kind).
   */
  async function record(scope: Scope, memberId: string, kind: LedgerKind, amounts: { xp?: number; gold?: number; damage?: number }, session: mongoose.ClientSession, emit: Emit, flags?: Flags) {
    const at = clock.now();
    const row = { memberId, kind, xp: amounts.xp ?? 0, gold: amounts.gold ?? 0, damage: amounts.damage ?? 0, tickets: 0, at, seasonId: seasonOf(at).id, weekId: weekIdOf(at), dayId: dayIdOf(at) };
    const d = db(scope);
    // Built here in full: inserted through the driver (no hydration, nothing to cast).
    await d.ledger.leanInsert([row], { session });
    if (row.xp || row.damage) {
      const $inc = { xp: row.xp, tickets: 0, damage: row.damage };
      await d.standings.leanBulkWrite(updates([row.seasonId, row.weekId].map((periodId) => ({ filter: { memberId, periodId }, update: { $inc }, upsert: true }))), { session });
    }
    const quests = questsCounting(kind);
    if (!quests.length || !(flags ?? (await members.flags(scope.teamId))).questsEnabled) return;
    for (const q of quests) {
      const periodId = q.cadence === 'daily' ? row.dayId : row.weekId;
      const count = await d.ledger.countDocuments({ memberId, kind, [q.cadence === 'daily' ? 'dayId' : 'weekId']: periodId }).session(session);
      if (completesOn(q, count)) emit({ type: 'game.quest.completed', data: { memberId, quest: q.key, periodId } });
    }
  }

  /** Unlocks what the player's state now earns (each once), paying its gold. */
  async function checkAchievements(scope: Scope, p: PlayerDoc, session: mongoose.ClientSession, emit: Emit, flags?: Flags) {
    if (!(flags ?? (await members.flags(scope.teamId))).achievementsEnabled) return;
    for (const a of achievementsEarned(p)) {
      const res = await db(scope).players.updateOne(
        { memberId: p.memberId, 'achievements.key': { $ne: a.key } },
        { $push: { achievements: { key: a.key, unlockedAt: clock.now() } }, $inc: { gold: a.gold } },
        { session },
      );
      if (!res.modifiedCount) continue;
      await record(scope, p.memberId, 'achievement', { gold: a.gold }, session, emit, flags);
      emit({ type: 'game.achievement.unlocked', data: { memberId: p.memberId, achievement: a.key, name: a.name, gold: a.gold } });
    }
  }

  /** Pays XP (with the prestige bonus) and gold, counts the level-ups and their skill points, and announces it all. */
  async function award(scope: Scope, memberId: string, a: Award, session: mongoose.ClientSession, emit: Emit, loaded?: PlayerDoc, flags?: Flags): Promise<PlayerDoc> {
    // `loaded`: the player this transaction already loaded (saves reading it again); `flags`: the
    // team's switches, read once for the quests and the achievements of this payment.
    const before = loaded ?? (await load(scope, memberId, session, emit));
    const switches = flags ?? (await members.flags(scope.teamId));
    const { xp, prestige, levelBefore, levelAfter, inc } = awardStep(before, a);
    const after = (await db(scope).players.leanFindOneAndUpdate<PlayerDoc>({ memberId }, { $inc: inc }, { session }))!;
    await record(scope, memberId, a.reason, { xp, gold: a.gold, damage: a.damage }, session, emit, switches);
    const season = after.seasonId;
    emit({
      type: 'game.xp_awarded',
      data: { memberId, reason: a.reason, xp, gold: a.gold, ticketId: null, breakdown: { ...(a.breakdown ?? {}), prestige }, seasonId: season, level: levelOf(after.seasonXp), seasonXp: after.seasonXp },
    });
    if (levelAfter > levelBefore) emit({ type: 'game.level_up', data: { memberId, seasonId: season, previousLevel: levelBefore, level: levelAfter } });
    emit({ type: 'game.player.progressed', data: { memberId, seasonId: season, level: levelOf(after.seasonXp), xp: after.seasonXp } });
    await checkAchievements(scope, after, session, emit, switches);
    return after;
  }

  return {
    load,
    award,
    record,
    checkAchievements,
    /** The player as stored, without creating it (null before the member's first game event). */
    async find(scope: Scope, memberId: string): Promise<PlayerDoc | null> {
      return db(scope).players.findOne({ memberId }).lean<PlayerDoc>();
    },
    /** Adds to stats counters (no payment) and checks achievements. */
    async count(scope: Scope, memberId: string, stats: Partial<PlayerDoc['stats']>, session: mongoose.ClientSession, emit: Emit) {
      await load(scope, memberId, session, emit);
      const inc = Object.fromEntries(Object.entries(stats).map(([k, v]) => [`stats.${k}`, v]));
      const after = (await db(scope).players.findOneAndUpdate({ memberId }, { $inc: inc }, { returnDocument: 'after', session }).lean<PlayerDoc>())!;
      await checkAchievements(scope, after, session, emit);
      return after;
    },
  };
}
export type PlayerRules = ReturnType<typeof playerRules>;
