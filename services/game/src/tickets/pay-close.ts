import type { FeatureFlag } from '@helpdesk/contracts';
import type { Emit } from '@helpdesk/kit';
import { achievementsEarned, applyInc, awardStep, completesOn, nextStreak, questsCounting } from '../player/apply';
import type { LedgerDoc } from '../player/model';
import { levelOf, ticketPay } from '../player/progression';
import type { Close, LedgerRow, Payee, Periods } from './partition-work';

/** Where one close's payment goes: its payee's state, the batch's ledger rows, the events, the team's switches. */
export interface PayContext {
  periods: Periods;
  now: Date;
  flags: Record<FeatureFlag, boolean>;
  ledger: LedgerRow[];
  emit: Emit;
}

function ledgerRow({ ledger, now, periods }: PayContext, memberId: string, kind: LedgerDoc['kind'], a: { xp?: number; gold?: number; tickets?: number }) {
  ledger.push({ memberId, kind, xp: a.xp ?? 0, gold: a.gold ?? 0, damage: 0, tickets: a.tickets ?? 0, at: now, seasonId: periods.season.id, weekId: periods.weekId, dayId: periods.dayId });
}

/** Pays one close to its payee in memory (player/apply.ts), in order: the award, the streak, quests completed, achievements unlocked. */
export function payClose(pc: PayContext, st: Payee, { memberId, ticket }: Close): void {
  const { p } = st;
  const { emit, periods } = pc;
  const streak = nextStreak(p.streak, periods.dayId);
  const pay = ticketPay({ priority: ticket.priority, slaTier: ticket.slaTier, streakDays: streak.current, skills: p.skills });
  const step = awardStep(p, { xp: pay.xp, gold: pay.gold, stats: { ticketsClosed: 1, goldSlaTickets: ticket.slaTier === 'gold' ? 1 : 0 } });
  applyInc(p, step.inc);
  p.streak = streak;
  for (const [k, v] of Object.entries(step.inc)) st.inc[k] = (st.inc[k] ?? 0) + v;
  ledgerRow(pc, memberId, 'ticket_closed', { xp: step.xp, gold: pay.gold, tickets: 1 });
  st.xp += step.xp;
  st.tickets += 1;
  if (pc.flags.questsEnabled) completeQuests(pc, st, memberId);
  emit({
    type: 'game.xp_awarded',
    data: { memberId, reason: 'ticket_closed', xp: step.xp, gold: pay.gold, ticketId: ticket._id, breakdown: { ...pay.breakdown, prestige: step.prestige }, seasonId: p.seasonId, level: levelOf(p.seasonXp), seasonXp: p.seasonXp },
  });
  if (step.levelAfter > step.levelBefore) emit({ type: 'game.level_up', data: { memberId, seasonId: p.seasonId, previousLevel: step.levelBefore, level: step.levelAfter } });
  emit({ type: 'game.player.progressed', data: { memberId, seasonId: p.seasonId, level: levelOf(p.seasonXp), xp: p.seasonXp } });
  if (pc.flags.achievementsEnabled) unlockAchievements(pc, st, memberId);
}

/** The quests this close completes (the period's count, as the batch found it plus its own closes, reaching the target). */
function completeQuests({ emit, periods }: PayContext, st: Payee, memberId: string): void {
  for (const q of questsCounting('ticket_closed')) {
    const count = (q.cadence === 'daily' ? st.dayBefore : st.weekBefore) + st.tickets;
    if (completesOn(q, count)) emit({ type: 'game.quest.completed', data: { memberId, quest: q.key, periodId: q.cadence === 'daily' ? periods.dayId : periods.weekId } });
  }
}

/** The achievements the player's state now earns: held, their gold paid and ledgered. */
function unlockAchievements(pc: PayContext, st: Payee, memberId: string): void {
  const { p } = st;
  for (const a of achievementsEarned(p)) {
    const unlocked = { key: a.key, unlockedAt: pc.now };
    p.achievements = [...p.achievements, unlocked];
    p.gold += a.gold;
    st.inc.gold = (st.inc.gold ?? 0) + a.gold;
    st.unlocked.push(unlocked);
    ledgerRow(pc, memberId, 'achievement', { gold: a.gold });
    pc.emit({ type: 'game.achievement.unlocked', data: { memberId, achievement: a.key, name: a.name, gold: a.gold } });
  }
}
