import type mongoose from 'mongoose';
import type { AcceptInviteInput, CreateInviteInput, InviteSnapshot, MemberSnapshot, Partition } from '@helpdesk/contracts';
import {
  ApiError,
  conflict,
  conflictOnDuplicate,
  eventScopeOf,
  foundOr404,
  newId,
  parameterInvalid,
  scoped,
  withOutbox,
  type RequestContext,
  type Unscoped,
} from '@helpdesk/kit';
import type { MemberRules } from '../members/rules';
import { memberView } from '../members/view';
import type { WorkspaceModels } from '../collections';
import type { SettingsRules } from '../settings/rules';
import type { InviteDoc } from './model';
import { hashInviteToken, newInviteToken } from './token';
import { inviteView } from './view';

export interface InviteRulesDeps {
  conn: mongoose.Connection;
  models: WorkspaceModels;
  members: MemberRules;
  settings: SettingsRules;
  /** The page invitation links open; `?token=…` is added. */
  inviteAcceptUrl: string;
}

const HOUR_MS = 60 * 60 * 1000;

/** Invitations: created pending with a single-use token, revoked, or accepted into a member (docs/adr/0013). */
export function inviteRules({ conn, models, members, settings, inviteAcceptUrl }: InviteRulesDeps) {
  const db = (ctx: { teamId: string }) => scoped(models, { teamId: ctx.teamId });

  return {
    /** Pending and not expired, newest first. */
    async list(ctx: RequestContext): Promise<InviteSnapshot[]> {
      const now = new Date();
      const rows = await db(ctx).invites.find({ status: 'pending', expiresAt: { $gt: now } }).sort({ createdAt: -1, _id: -1 }).lean<InviteDoc[]>();
      return rows.map((i) => inviteView(i, now));
    },

    async create(ctx: RequestContext, input: CreateInviteInput): Promise<InviteSnapshot> {
      if (input.role === 'owner') throw parameterInvalid('role', 'Invalid role: nobody can be invited as owner; a team has exactly one.');
      const emailLower = input.email.toLowerCase();
      // No link yet: a token nobody knows; the sender of the message asks for a usable one (issueLink).
      const { hash } = newInviteToken(ctx.teamId);
      return conflictOnDuplicate(
        () =>
          withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
            if (await members.hasEmail(ctx.teamId, emailLower, session)) throw conflict(`${input.email} is already a member of this team.`, 'email');
            const now = new Date();
            // A pending invite past its expiry no longer blocks a new one.
            await db(ctx).invites.updateMany({ emailLower, status: 'pending', expiresAt: { $lte: now } }, { $set: { status: 'expired' } }, { session });
            const doc: Unscoped<InviteDoc> = {
              _id: newId('invite'),
              email: input.email,
              emailLower,
              role: input.role,
              status: 'pending',
              tokenHash: hash,
              keyMode: ctx.mode,
              invitedBy: ctx.memberId,
              message: { status: 'queued', at: null, error: null },
              expiresAt: new Date(now.getTime() + input.expiresInHours * HOUR_MS),
              createdAt: now,
              acceptedAt: null,
              memberId: null,
              revokedAt: null,
            };
            await db(ctx).invites.create([doc], { session });
            const team = await settings.read(ctx, session);
            const inviter = ctx.memberId ? await members.findById(ctx.teamId, ctx.memberId) : null;
            const invite = inviteView(doc, now);
            emit({ type: 'member.invited', data: { invite, teamName: team.teamName, inviterName: inviter?.name ?? null } });
            return invite;
          }),
        { emailLower: { param: 'email', message: `${input.email} already has a pending invite.` } },
      );
    },

    /**
     * The link of a pending invite, with a new single-use token: only its hash is kept, so each call
     * replaces the token and any earlier link stops working. Asked by whoever sends the message.
     */
    async issueLink(scope: { teamId: string }, id: string): Promise<{ acceptUrl: string; token: string; expiresAt: string }> {
      const { token, hash } = newInviteToken(scope.teamId);
      const invite = await foundOr404(
        db(scope).invites.findOneAndUpdate(
          { _id: id, status: 'pending', expiresAt: { $gt: new Date() } },
          { $set: { tokenHash: hash } },
          { returnDocument: 'after' },
        ).lean<InviteDoc>(),
        'pending invite',
        id,
      );
      const acceptUrl = `${inviteAcceptUrl}${inviteAcceptUrl.includes('?') ? '&' : '?'}token=${token}`;
      return { acceptUrl, token, expiresAt: invite.expiresAt.toISOString() };
    },

    /** Records what became of the invitation message (`invite.message_recorded`). */
    async recordMessage(ctx: RequestContext, id: string, outcome: { status: 'sent' | 'failed'; error?: string }): Promise<InviteSnapshot> {
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const message = { status: outcome.status, at: new Date(), error: outcome.status === 'failed' ? (outcome.error ?? null) : null };
        const next = await foundOr404(
          db(ctx).invites.findOneAndUpdate({ _id: id }, { $set: { message } }, { session, returnDocument: 'after' }).lean<InviteDoc>(),
          'invite',
          id,
        );
        const invite = inviteView(next);
        emit({ type: 'invite.message_recorded', data: { invite } });
        return invite;
      });
    },

    async revoke(ctx: RequestContext, id: string): Promise<{ id: string; deleted: true }> {
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const now = new Date();
        const next = await foundOr404(
          db(ctx).invites.findOneAndUpdate(
            { _id: id, status: 'pending', expiresAt: { $gt: now } },
            { $set: { status: 'revoked', revokedAt: now } },
            { session, returnDocument: 'after' },
          ).lean<InviteDoc>(),
          'pending invite',
          id,
        );
        emit({ type: 'invite.revoked', data: { invite: inviteView(next, now) } });
      });
      return { id, deleted: true };
    },

    /**
     * The token's invite becomes a member (its email and role, the given name), in one transaction
     * with the invite's `accepted`. Answers the member and the partition of its first key.
     */
    async accept(ctx: RequestContext, input: AcceptInviteInput): Promise<{ member: MemberSnapshot; mode: Partition }> {
      const tokenHash = hashInviteToken(input.token);
      const usable = (invite: InviteDoc | null, now: Date): InviteDoc => {
        if (!invite) throw new ApiError('resource_not_found', 'No invitation has this token.', 'token');
        if (invite.status === 'accepted') throw new ApiError('invite_already_accepted', 'This invitation has already been accepted.', 'token');
        if (invite.status === 'revoked') throw new ApiError('invite_revoked', 'This invitation has been revoked.', 'token');
        if (invite.status === 'expired' || invite.expiresAt <= now) throw new ApiError('invite_expired', 'This invitation has expired; ask for a new one.', 'token');
        return invite;
      };
      // Read once for the events' scope: the new member is the actor of its own joining, in the partition of its first key.
      const first = usable(await db(ctx).invites.findOne({ tokenHash }).lean<InviteDoc>(), new Date());
      const memberId = newId('member');
      const scope = { ...eventScopeOf(ctx), mode: first.keyMode, actor: { type: 'member' as const, id: memberId } };
      return withOutbox(conn, scope, async (session, emit) => {
        const now = new Date();
        const invite = usable(await db(ctx).invites.findOne({ tokenHash }).session(session).lean<InviteDoc>(), now);
        const member = await members.insert(ctx.teamId, { id: memberId, name: input.name, email: invite.email, role: invite.role, avatarUrl: input.avatarUrl }, session);
        const accepted = await db(ctx).invites.findOneAndUpdate(
          { _id: invite._id, status: 'pending' },
          { $set: { status: 'accepted', acceptedAt: now, memberId } },
          { session, returnDocument: 'after' },
        ).lean<InviteDoc>();
        if (!accepted) throw new ApiError('invite_already_accepted', 'This invitation has already been accepted.', 'token');
        members.emitJoined(emit, member, 'invite', invite._id);
        emit({ type: 'invite.accepted', data: { invite: inviteView(accepted, now), memberId } });
        return { member: memberView(member), mode: invite.keyMode };
      });
    },
  };
}

export type InviteRules = ReturnType<typeof inviteRules>;
