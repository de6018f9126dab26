import type mongoose from 'mongoose';
import type { NotificationPreferences } from '@helpdesk/contracts';
import { eventScopeOf, withOutbox, type RequestContext } from '@helpdesk/kit';
import type { TeamMemberRules } from '../../members/rules';

/** A member's notification settings (docs/adr/0020): kept on this service's copy of the member, per team. */
export function notificationPreferenceRules({ conn, members }: { conn: mongoose.Connection; members: TeamMemberRules }) {
  return {
    async get(ctx: RequestContext, userId: string | undefined): Promise<NotificationPreferences> {
      const m = await members.caller(ctx, userId);
      return { memberId: m._id, email: m.emailNotifications };
    },

    /** Changes `email`; emits `notification.preferences_updated` only when it changes. */
    async update(ctx: RequestContext, input: { userId?: string; email: boolean }): Promise<NotificationPreferences> {
      const m = await members.caller(ctx, input.userId);
      const preferences = { memberId: m._id, email: input.email };
      if (m.emailNotifications === input.email) return preferences;
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        await members.setEmailNotifications(ctx.teamId, m._id, input.email, session);
        emit({ type: 'notification.preferences_updated', data: { preferences, changes: ['email'], previous: { email: m.emailNotifications } } });
        return preferences;
      });
    },
  };
}
