import type mongoose from 'mongoose';
import { ROLE_PERMISSIONS, type ApiKeySnapshot, type KeyAccess, type MemberSnapshot } from '@helpdesk/contracts';
import { eventScopeOf, withOutbox, type RequestContext } from '@helpdesk/kit';
import type { BillingRules } from '../billing/rules';
import type { MemberRules } from '../members/rules';
import { memberView } from '../members/view';
import type { SettingsRules } from '../settings/rules';

export interface TeamRulesDeps {
  conn: mongoose.Connection;
  members: MemberRules;
  settings: SettingsRules;
  billing: BillingRules;
}

/** What the gateway asks: a key's member and team (for every key it resolves), and a new team's owner. */
export function teamRules({ conn, members, settings, billing }: TeamRulesDeps) {
  return {
    /** The member's role and permission set (null when removed), the team's current name and slug and its subscription's status. */
    async access(teamId: string, memberId: string | undefined): Promise<KeyAccess> {
      const [name, subscriptionStatus, member] = await Promise.all([
        settings.nameOf(teamId),
        billing.statusOf(teamId),
        memberId ? members.findById(teamId, memberId) : null,
      ]);
      const team = name ? { ...name, subscriptionStatus } : null;
      return { team, member: member ? { id: member._id, role: member.role, permissions: [...ROLE_PERMISSIONS[member.role]] } : null };
    },

    /** The owner member and the settings of a new team; the existing owner when the team has one (a retried creation). */
    async createOwner(ctx: RequestContext, input: { name: string; email: string; teamName: string; teamSlug: string }): Promise<MemberSnapshot> {
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        await settings.ensure(ctx.teamId, { name: input.teamName, slug: input.teamSlug }, session);
        const existing = await members.owner(ctx.teamId, session);
        if (existing) return memberView(existing);
        const owner = await members.insert(ctx.teamId, { name: input.name, email: input.email, role: 'owner' }, session);
        members.emitJoined(emit, owner, 'team_created', null, { name: input.teamName, slug: input.teamSlug });
        return memberView(owner);
      });
    },
  };
}

/** `api_key.created` and `api_key.revoked`, emitted here for the gateway, which owns keys but has no outbox. */
export function apiKeyEventRules({ conn }: { conn: mongoose.Connection }) {
  return {
    async record(ctx: RequestContext, type: 'api_key.created' | 'api_key.revoked', apiKey: ApiKeySnapshot): Promise<{ eventId: string }> {
      const envelope = await withOutbox(conn, eventScopeOf(ctx), async (_session, emit) => emit({ type, data: { apiKey } }));
      return { eventId: envelope.id };
    },
  };
}
