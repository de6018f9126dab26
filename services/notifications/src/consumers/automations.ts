import type mongoose from 'mongoose';
import { consumeOnceEmitting, type TypedEvent } from '@helpdesk/kit';
import type { TeamMemberRules } from '../members/rules';
import type { NotificationRules } from '../notifications/rules';
import { CONSUMER } from './consumer';

/**
 * `automation` (docs/adr/0028): an automation rule's `notify_member` action reaches the member it
 * names, with the rule's message as the body, once per rule run; a member who has left hears nothing.
 */
export function automationConsumers(conn: mongoose.Connection, members: TeamMemberRules, notifications: NotificationRules) {
  return {
    async memberNotified(e: TypedEvent<'automation.member_notified'>) {
      const { memberId, ticketId, message } = e.data;
      await consumeOnceEmitting(conn, CONSUMER, e, async (session, emit) =>
        notifications.createFrom(
          e,
          (await members.byIds(e.teamId, [memberId], session)).map((m) => ({
            memberId: m._id,
            type: 'automation' as const,
            title: 'An automation rule needs your attention',
            body: message,
            ticketId,
          })),
          session,
          emit,
        ),
      );
    },
  };
}
