import type mongoose from 'mongoose';
import { consumeOnceEmitting, type TypedEvent } from '@helpdesk/kit';
import type { TeamMemberRules } from '../members/rules';
import type { NotificationRules } from '../notifications/rules';
import { CONSUMER } from './consumer';

const TARGET_NAMES = { first_response: 'first response', resolution: 'resolution' } as const;

/**
 * `sla_breached` (docs/adr/0026): the ticket's assignee, when it has one and they are still a
 * member, hears once per breached target. An unassigned ticket's breach notifies nobody here
 * (webhooks and the event stream carry `sla.breached` to whoever watches the team).
 */
export function slaConsumers(conn: mongoose.Connection, members: TeamMemberRules, notifications: NotificationRules) {
  return {
    async breached(e: TypedEvent<'sla.breached'>) {
      const { ticket, target, dueAt } = e.data;
      if (!ticket.assignedTo) return;
      await consumeOnceEmitting(conn, CONSUMER, e, async (session, emit) =>
        notifications.createFrom(
          e,
          (await members.byIds(e.teamId, [ticket.assignedTo!], session)).map((m) => ({
            memberId: m._id,
            type: 'sla_breached' as const,
            title: `SLA ${TARGET_NAMES[target]} target missed on ${ticket.title}`,
            body: `The ${TARGET_NAMES[target]} was due at ${dueAt}.`,
            ticketId: ticket.id,
          })),
          session,
          emit,
        ),
      );
    },
  };
}
