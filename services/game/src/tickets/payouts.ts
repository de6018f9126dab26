import type mongoose from 'mongoose';
import type { Emit, Scope } from '@helpdesk/kit';
import { leanScoped } from '../lean';
import type { Clock } from '../clock';
import type { GameMemberRules } from '../members/rules';
import type { GameModels } from '../models';
import type { PlayerRules } from '../player/rules';
import { ticketPay } from '../player/progression';
import { dayIdOf, previousDayId } from '../seasons/calendar';
import type { GameTicketDoc } from './model';
import { isCustomerTicket } from './rules';

/**
 * A closed customer ticket pays the member who closed it, once ever: re-opening and closing again,
 * a merge, a second close, and tickets opened by a member pay nothing (docs/adr/0032).
 */
export function ticketPayoutRules({ models, members, players, clock }: { models: GameModels; members: GameMemberRules; players: PlayerRules; clock: Clock }) {
  return {
    async pay(scope: Scope, ticket: GameTicketDoc, memberId: string, session: mongoose.ClientSession, emit: Emit): Promise<boolean> {
      if (!isCustomerTicket(ticket)) return false;
      // Both outside the transaction, at once: the member as the workspace last told, the team's switches (read once per payment).
      const [member, flags] = await Promise.all([members.find(scope.teamId, memberId), members.flags(scope.teamId)]);
      if (!member) return false;
      // One command: the payout row is inserted unless the ticket paid already (the unique index on the
      // ticket is the guarantee; an upsert that finds the row keeps the transaction from aborting on it).
      const res = await leanScoped(models.payouts, scope).updateOne({ ticketId: ticket._id }, { $setOnInsert: { memberId, paidAt: clock() } }, session, { upsert: true });
      if (!res.upsertedCount) return false;

      const p = await players.load(scope, memberId, session, emit);
      const today = dayIdOf(clock());
      const current = p.streak.lastDayId === today ? p.streak.current : p.streak.lastDayId === previousDayId(today) ? p.streak.current + 1 : 1;
      const streak = { current, max: Math.max(p.streak.max, current), lastDayId: today };

      const pay = ticketPay({ priority: ticket.priority, slaTier: ticket.slaTier, streakDays: current, skills: p.skills });
      await players.award(
        scope,
        memberId,
        { reason: 'ticket_closed', xp: pay.xp, gold: pay.gold, ticketId: ticket._id, breakdown: pay.breakdown, stats: { ticketsClosed: 1, goldSlaTickets: ticket.slaTier === 'gold' ? 1 : 0 }, set: { streak } },
        session,
        emit,
        p,
        flags,
      );
      return true;
    },
  };
}
export type TicketPayoutRules = ReturnType<typeof ticketPayoutRules>;
