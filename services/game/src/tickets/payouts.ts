import type mongoose from 'mongoose';
import { scoped, type Emit, type Scope } from '@helpdesk/kit';
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
      if (!(await members.find(scope.teamId, memberId))) return false;
      const db = scoped(models, scope);
      // The unique index on the ticket is the guarantee; the check keeps the transaction from aborting on it.
      if (await db.payouts.exists({ ticketId: ticket._id }).session(session)) return false;
      await db.payouts.create([{ ticketId: ticket._id, memberId, paidAt: clock() }], { session });

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
      );
      return true;
    },
  };
}
export type TicketPayoutRules = ReturnType<typeof ticketPayoutRules>;
