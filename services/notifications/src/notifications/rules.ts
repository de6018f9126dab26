import type mongoose from 'mongoose';
import {
  UNREAD_COUNT_CAP,
  type EventEnvelope,
  type ListNotificationsQuery,
  type NotificationSnapshot,
  type NotificationType,
  type Page,
} from '@helpdesk/contracts';
import { eventScopeOf, findPage, foundOr404, newId, scoped, scopeOf, withOutbox, type Emit, type RequestContext, type ScopedFilter } from '@helpdesk/kit';
import type { MailRules } from '../mail/rules';
import type { TeamMemberRules } from '../members/rules';
import type { NotificationsModels } from '../collections';
import type { NotificationDoc } from './model';
import { notificationView } from './view';

/** A notification to make for one member (the consumers decide who and what). */
export interface NotificationDraft {
  memberId: string;
  type: NotificationType;
  title: string;
  body: string;
  ticketId: string | null;
}

export interface NotificationRulesDeps {
  conn: mongoose.Connection;
  models: NotificationsModels;
  members: TeamMemberRules;
  mail: MailRules;
}

export function notificationRules({ conn, models, members, mail }: NotificationRulesDeps) {
  return {
    /**
     * Makes the drafts of one event, in the event's team and partition, and emits `notification.created`
     * for each, and queues its email for members who turned notification emails on. Runs inside the
     * consumer's once-only transaction; the unique (event, member) index is the second guard.
     */
    async createFrom(event: EventEnvelope, drafts: NotificationDraft[], session: mongoose.ClientSession, emit: Emit) {
      const db = scoped(models, scopeOf(event));
      const emailTo = new Map(
        (await members.byIds(event.teamId, drafts.map((d) => d.memberId), session)).filter((m) => m.emailNotifications).map((m) => [m._id, m.email]),
      );
      const seen = new Set<string>();
      for (const d of drafts) {
        if (seen.has(d.memberId)) continue; // one per event and member (a mention of the assignee who is also assigned)
        seen.add(d.memberId);
        const doc: Omit<NotificationDoc, 'teamId' | 'mode'> = {
          _id: newId('notification'),
          ...d,
          isRead: false,
          readAt: null,
          sourceEventId: event.id,
          createdAt: new Date(),
        };
        await db.notifications.create([doc], { session });
        emit({ type: 'notification.created', data: { notification: notificationView(doc), sourceEventId: event.id } });
        const to = emailTo.get(d.memberId);
        if (to) await mail.queueNotification(event, to, { notificationId: doc._id, type: d.type, title: d.title, body: d.body, ticketId: d.ticketId }, session);
      }
    },

    async list(ctx: RequestContext, q: ListNotificationsQuery): Promise<Page<NotificationSnapshot>> {
      const member = await members.caller(ctx, q.userId);
      const filter: ScopedFilter<NotificationDoc> = { memberId: member._id };
      if (q.isRead !== undefined) filter.isRead = q.isRead;
      if (q.type) filter.type = q.type;
      const { rows, pagination } = await findPage(scoped(models, ctx).notifications, filter, q);
      return { data: rows.map(notificationView), pagination };
    },

    /** Counts up to the cap and says whether it stopped there: a badge never waits on a huge backlog. */
    async unreadCount(ctx: RequestContext, userId: string | undefined): Promise<{ unreadCount: number; truncated: boolean }> {
      const member = await members.caller(ctx, userId);
      const n = await scoped(models, ctx).notifications.countDocuments({ memberId: member._id, isRead: false }, { limit: UNREAD_COUNT_CAP + 1 });
      return { unreadCount: Math.min(n, UNREAD_COUNT_CAP), truncated: n > UNREAD_COUNT_CAP };
    },

    async markAllRead(ctx: RequestContext, userId: string | undefined): Promise<{ markedRead: number }> {
      const member = await members.caller(ctx, userId);
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const r = await scoped(models, ctx).notifications.updateMany(
          { memberId: member._id, isRead: false },
          { $set: { isRead: true, readAt: new Date() } },
          { session },
        );
        if (r.modifiedCount > 0) emit({ type: 'notification.all_read', data: { memberId: member._id, markedRead: r.modifiedCount } });
        return { markedRead: r.modifiedCount };
      });
    },

    /** Marks one of the member's notifications read; already read: answered as it is. */
    async markRead(ctx: RequestContext, notificationId: string, userId: string | undefined): Promise<NotificationSnapshot> {
      const member = await members.caller(ctx, userId);
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const db = scoped(models, ctx);
        const mine = { _id: notificationId, memberId: member._id };
        const updated = await db.notifications
          .findOneAndUpdate({ ...mine, isRead: false }, { $set: { isRead: true, readAt: new Date() } }, { returnDocument: 'after', session })
          .lean<NotificationDoc>();
        if (updated) {
          const view = notificationView(updated);
          emit({ type: 'notification.read', data: { notification: view } });
          return view;
        }
        return notificationView(await foundOr404(db.notifications.findOne(mine, null, { session }).lean<NotificationDoc>(), 'notification', notificationId));
      });
    },
  };
}
export type NotificationRules = ReturnType<typeof notificationRules>;
