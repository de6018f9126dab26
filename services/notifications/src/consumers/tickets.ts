import type mongoose from 'mongoose';
import { consumeOnceEmitting, type TypedEvent } from '@helpdesk/kit';
import type { TeamMemberRules } from '../members/rules';
import { mentionedHandles } from '../notifications/mentions';
import type { NotificationDraft, NotificationRules } from '../notifications/rules';
import { CONSUMER } from './consumer';

/** A message's first line, shortened: what a notification's body quotes. */
const excerpt = (text: string, max = 200) => {
  const line = text.trim().split('\n')[0];
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/**
 * What ticket events notify (docs/adr/0020): the new assignee (`assigned`), the assignee when the
 * customer writes (`customer_replied`), and every member an internal note mentions (`mentioned`).
 * Only current members are notified; each event makes its notifications once.
 */
export function ticketConsumers(conn: mongoose.Connection, members: TeamMemberRules, notifications: NotificationRules) {
  const notify = (e: TypedEvent<any>, draft: (session: mongoose.ClientSession) => Promise<NotificationDraft[]>) =>
    consumeOnceEmitting(conn, CONSUMER, e, async (session, emit) => notifications.createFrom(e, await draft(session), session, emit));

  return {
    async updated(e: TypedEvent<'ticket.updated'>) {
      const { ticket, changes } = e.data;
      if (!changes.includes('assignedTo') || !ticket.assignedTo) return;
      await notify(e, async (session) =>
        (await members.byIds(e.teamId, [ticket.assignedTo!], session)).map((m) => ({
          memberId: m._id,
          type: 'assigned' as const,
          title: `You were assigned ticket ${ticket.id}`,
          body: ticket.title,
          ticketId: ticket.id,
        })),
      );
    },

    async messageAdded(e: TypedEvent<'ticket.message_added'>) {
      const { ticket, message } = e.data;
      if (message.sender === 'customer' && !message.isInternal && ticket.assignedTo) {
        await notify(e, async (session) =>
          (await members.byIds(e.teamId, [ticket.assignedTo!], session)).map((m) => ({
            memberId: m._id,
            type: 'customer_replied' as const,
            title: `${message.senderName ?? 'The customer'} replied on ${ticket.title}`,
            body: excerpt(message.content),
            ticketId: ticket.id,
          })),
        );
        return;
      }
      const handles = message.isInternal ? mentionedHandles(message.content) : [];
      if (!handles.length) return;
      await notify(e, async (session) =>
        (await members.byHandles(e.teamId, handles, session)).map((m) => ({
          memberId: m._id,
          type: 'mentioned' as const,
          title: `${message.senderName ?? 'Someone'} mentioned you on ${ticket.title}`,
          body: excerpt(message.content),
          ticketId: ticket.id,
        })),
      );
    },
  };
}
