import type mongoose from 'mongoose';
import type { SkillKey } from '@helpdesk/contracts';
import { ApiError, eventScopeOf, randomBase62, scoped, systemEventScope, withOutbox, type RequestContext, type Scope } from '@helpdesk/kit';
import type { Clock } from '@helpdesk/kit';
import type { GameMemberDoc } from '../members/model';
import type { GameModels } from '../collections';
import { oneAtATime } from '../one-at-a-time';
import type { PlayerRules } from '../player/rules';
import type { GameTicketDoc } from '../tickets/model';
import type { GameTicketRules } from '../tickets/rules';
import { isCustomerTicket } from '../tickets/rules';
import { battleRewards, DIFFICULTIES, difficultyFor, ESCAPE_AFTER_MS, healthPercent, hit, regenerated, SPAWN_WINDOW_MS } from './battle';
import type { BossDoc } from './model';
import { bossView } from './view';

/** Another hit changed the boss between this hit's read and its write: the hit is tried again on the new state. */
class StaleBoss extends Error {}
const MAX_ATTEMPTS = 200;

const summary = (b: BossDoc) => ({ id: b._id, name: b.name, level: b.level, difficulty: b.difficulty, maxHealth: b.maxHealth });

/** Boss battles in one team's partition: spawn, hits, defeat and its rewards, escape. */
export function bossRules({ conn, models, players, tickets, clock }: { conn: mongoose.Connection; models: GameModels; players: PlayerRules; tickets: GameTicketRules; clock: Clock }) {
  const db = (scope: Scope) => scoped(models, scope);
  const activeKey = (scope: Scope) => `${scope.teamId}:${scope.mode}`;

  /** Ends a boss whose time ran out (escaped, no rewards); answers the active boss, if any, after that. */
  async function settle(scope: Scope): Promise<BossDoc | null> {
    const boss = await db(scope).bosses.findOne({ activeKey: activeKey(scope) }).lean<BossDoc>();
    if (!boss || clock.now() < boss.escapesAt) return boss;
    await withOutbox(conn, systemEventScope(scope), async (session, emit) => {
      const { currentHealth, totalHealed } = regenerated(boss, boss.escapesAt);
      const res = await db(scope).bosses.updateOne(
        { _id: boss._id, status: 'active' },
        { $set: { status: 'escaped', activeKey: boss._id, endedAt: boss.escapesAt, currentHealth, totalHealed, rev: boss.rev + 1 } },
        { session },
      );
      if (res.modifiedCount) emit({ type: 'game.boss.escaped', data: { boss: summary(boss), currentHealth, battleDuration: ESCAPE_AFTER_MS / 1000 } });
    });
    return null;
  }

  return {
    settle,
    /** The active boss, else the last one that ended, else null. */
    async state(scope: Scope) {
      const active = await settle(scope);
      const boss = active ?? (await db(scope).bosses.findOne({}).sort({ spawnedAt: -1 }).lean<BossDoc>());
      return { object: 'boss_state' as const, active: !!active, boss: boss ? bossView(boss, clock.now()) : null };
    },
    async isActive(scope: Scope) {
      return { object: 'boss_active' as const, active: !!(await settle(scope)) };
    },
    async history(scope: Scope, skip: number, limit: number) {
      const filter = { status: { $in: ['defeated', 'escaped'] as BossDoc['status'][] } };
      const [rows, total] = await Promise.all([
        db(scope).bosses.find(filter).sort({ spawnedAt: -1, _id: -1 }).skip(skip).limit(limit).lean<BossDoc[]>(),
        db(scope).bosses.countDocuments(filter),
      ]);
      return { data: rows.map((b) => bossView(b, clock.now())), total };
    },

    /** Summons a boss when enough customer tickets came in the last 5 minutes. */
    async spawn(ctx: RequestContext) {
      if (await settle(ctx)) throw new ApiError('boss_already_active', 'A boss is already up: defeat it first.');
      const now = clock.now();
      const count = await tickets.countCustomerTicketsSince(ctx, new Date(now.getTime() - SPAWN_WINDOW_MS));
      const difficulty = difficultyFor(count);
      if (!difficulty) {
        throw new ApiError('not_enough_tickets', `A boss needs ${DIFFICULTIES.easy.minTickets} customer tickets in the last 5 minutes; there were ${count}.`);
      }
      const d = DIFFICULTIES[difficulty];
      const boss: BossDoc = {
        _id: `boss_${randomBase62(24)}`, teamId: ctx.teamId, mode: ctx.mode, activeKey: activeKey(ctx), status: 'active', name: d.name, level: d.level, difficulty,
        maxHealth: d.maxHealth, currentHealth: d.maxHealth, shield: { active: d.shieldHits > 0, hitsRemaining: d.shieldHits }, shieldRaisedInPhase2: false,
        enraged: false, totalHealed: 0, lastHealAt: now, participants: [], totalDamage: 0, spawnedAt: now, escapesAt: new Date(now.getTime() + ESCAPE_AFTER_MS),
        endedAt: null, killedBy: null, rev: 0,
      };
      try {
        await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
          const { teamId: _t, mode: _m, ...doc } = boss;
          await db(ctx).bosses.create([doc], { session });
          emit({ type: 'game.boss.spawned', data: { boss: summary(boss), ticketCount: count } });
        });
      } catch (err) {
        // Another spawn won the race for this partition's one active boss.
        if ((err as { code?: number }).code === 11000) throw new ApiError('boss_already_active', 'A boss is already up: defeat it first.');
        throw err;
      }
      return { object: 'boss_state' as const, active: true, boss: bossView(boss, now) };
    },

    /** One hit with a closed customer ticket: exact under concurrency (each hit applies to the state it read, or is tried again). */
    async damage(ctx: RequestContext, member: GameMemberDoc, ticketId: string, userName: string | undefined) {
      const ticket = await tickets.find(ctx, ticketId);
      if (!ticket) throw new ApiError('resource_not_found', `No ticket '${ticketId}' in this team and partition.`, 'ticketId');
      if (!isCustomerTicket(ticket)) throw new ApiError('ticket_not_eligible', 'Only customer tickets (opened by a customer through the widget, email or the API) hit a boss.', 'ticketId');
      if (ticket.status !== 'closed') throw new ApiError('ticket_not_eligible', `The ticket is ${ticket.status}: only a closed ticket hits a boss.`, 'ticketId');
      const alreadyHit = () => new ApiError('boss_hit_already_dealt', 'This ticket has already dealt its hit.', 'ticketId');
      if (await db(ctx).hits.exists({ ticketId })) throw alreadyHit();
      if (!(await settle(ctx))) throw new ApiError('boss_not_active', 'No boss is up: summon one first.');
      const player = await players.find(ctx, member._id);
      const skills = player?.skills ?? { swift_resolver: 0, gold_digger: 0, boss_slayer: 0, shield_breaker: 0 };
      return oneAtATime(activeKey(ctx), () => this.hitOnce(ctx, member, ticket, userName, skills));
    },

    async hitOnce(ctx: RequestContext, member: GameMemberDoc, ticket: GameTicketDoc, userName: string | undefined, skills: Record<SkillKey, number>) {
      const ticketId = ticket._id;
      const alreadyHit = () => new ApiError('boss_hit_already_dealt', 'This ticket has already dealt its hit.', 'ticketId');
      for (let attempt = 1; ; attempt++) {
        try {
          return await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
            const boss = await db(ctx).bosses.findOne({ activeKey: activeKey(ctx) }).session(session).lean<BossDoc>();
            const now = clock.now();
            if (!boss || now >= boss.escapesAt) throw new ApiError('boss_not_active', 'No boss is up: summon one first.');
            if (await db(ctx).hits.exists({ ticketId }).session(session)) throw alreadyHit();
            const out = hit(boss, { priority: ticket.priority, skills }, now);
            const defeated = out.next.currentHealth === 0;
            const participants = [...boss.participants];
            const i = participants.findIndex((p) => p.memberId === member._id);
            const name = userName ?? member.name;
            if (i < 0) participants.push({ memberId: member._id, name, damage: out.damage, hits: 1, lastHitAt: now });
            else participants[i] = { ...participants[i]!, name, damage: participants[i]!.damage + out.damage, hits: participants[i]!.hits + 1, lastHitAt: now };
            await db(ctx).hits.create([{ ticketId, bossId: boss._id, memberId: member._id, damage: out.damage, at: now }], { session });
            const ended = defeated ? { status: 'defeated', activeKey: boss._id, endedAt: now, killedBy: member._id } : {};
            const res = await db(ctx).bosses.updateOne({ _id: boss._id, rev: boss.rev }, { $set: { ...out.next, participants, ...ended, rev: boss.rev + 1 } }, { session });
            if (!res.modifiedCount) throw new StaleBoss();
            await players.record(ctx, member._id, 'boss_hit', { damage: out.damage }, session, emit);
            emit({
              type: 'game.boss.damaged',
              data: { bossId: boss._id, memberId: member._id, ticketId, damage: out.damage, currentHealth: out.next.currentHealth, shieldBlocked: out.shieldBlocked, shieldBroken: out.shieldBroken, enrageTriggered: out.enrageTriggered, isKillingBlow: out.isKillingBlow },
            });
            if (defeated) {
              const after: BossDoc = { ...boss, ...out.next, participants, status: 'defeated', endedAt: now, killedBy: member._id };
              const rewards = battleRewards(after, member._id);
              for (const r of rewards) {
                await players.award(ctx, r.memberId, { reason: 'boss_reward', xp: r.xp, gold: r.gold, stats: { bossesDefeated: 1, finalBlows: r.finalBlow ? 1 : 0 } }, session, emit);
              }
              emit({ type: 'game.boss.defeated', data: { boss: summary(boss), killedBy: member._id, battleDuration: Math.floor((now.getTime() - boss.spawnedAt.getTime()) / 1000), rewards } });
            }
            const activeAbilities = defeated ? [] : [...(out.next.shield.active ? ['shield'] : []), ...(out.next.enraged ? ['enrage'] : []), 'heal'];
            return {
              object: 'boss_damage' as const,
              bossId: boss._id,
              ticketId,
              memberId: member._id,
              damage: out.damage,
              currentHealth: out.next.currentHealth,
              healthPercent: healthPercent(out.next.currentHealth, boss.maxHealth),
              previousHealthPercent: healthPercent(out.previousHealth, boss.maxHealth),
              isDefeated: defeated,
              isKillingBlow: out.isKillingBlow,
              shieldBlocked: out.shieldBlocked,
              shieldBroken: out.shieldBroken,
              enrageTriggered: out.enrageTriggered,
              activeAbilities,
            };
          });
        } catch (err) {
          // The same ticket sent at once: the unique index lets one hit in.
          if ((err as { code?: number }).code === 11000) throw alreadyHit();
          if (!(err instanceof StaleBoss) || attempt >= MAX_ATTEMPTS) throw err;
          await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, attempt * 2)));
        }
      }
    },
  };
}
export type BossRules = ReturnType<typeof bossRules>;
