import type mongoose from 'mongoose';
import { ROLE_PERMISSIONS, SESSION_MAX_AGE_MS, type ListSessionsQuery, type SessionAccess, type Partition } from '@helpdesk/contracts';
import { ApiError, eventScopeOf, newId, notFound, scoped, withOutbox, type RequestContext, type Unscoped } from '@helpdesk/kit';
import type { BillingRules } from '../billing/rules';
import type { MemberDoc } from '../members/model';
import type { MemberRules } from '../members/rules';
import type { WorkspaceModels } from '../collections';
import type { SettingsRules } from '../settings/rules';
import type { SignInLinkDoc } from '../sign-in-links/model';
import { endSession, openAt } from './end';
import type { SessionDoc } from './model';
import { sessionSnapshot, sessionView } from './view';

export interface SessionRulesDeps {
  conn: mongoose.Connection;
  models: WorkspaceModels;
  members: MemberRules;
  settings: SettingsRules;
  billing: BillingRules;
}

/** The look-ups refresh `lastUsedAt` at most this often (the idle timeout is a day: a minute is precise enough). */
const TOUCH_EVERY_MS = 60_000;
/** The longest user agent kept. */
const USER_AGENT_MAX = 300;

/** Console sessions (docs/adr/0068): opened by a sign-in link, looked up by the gateway, listed and ended by members. */
export function sessionRules({ conn, models, members, settings, billing }: SessionRulesDeps) {
  const db = (ctx: { teamId: string }) => scoped(models, { teamId: ctx.teamId });

  async function accessOf(teamId: string, s: Unscoped<SessionDoc>, m: MemberDoc): Promise<SessionAccess> {
    const [name, subscriptionStatus] = await Promise.all([settings.nameOf(teamId), billing.statusOf(teamId)]);
    return {
      session: sessionSnapshot(s),
      member: { id: m._id, name: m.name, email: m.email, role: m.role, permissions: [...ROLE_PERMISSIONS[m.role]] },
      team: { name: name?.name ?? '', slug: name?.slug ?? '', subscriptionStatus },
    };
  }

  /** The calling session's own open record (the token is the session's: `keyId` is its id), else 404. */
  async function own(ctx: RequestContext, session?: mongoose.ClientSession): Promise<SessionDoc> {
    if (ctx.keyType !== 'session') throw new ApiError('insufficient_permissions', 'Only a console session can change itself.');
    const s = await db(ctx).sessions.findOne({ _id: ctx.keyId, ...openAt(new Date()) }).session(session ?? null).lean<SessionDoc>();
    if (!s) throw notFound('session', ctx.keyId);
    return s;
  }

  const memberOf = async (teamId: string, memberId: string) => {
    const m = await members.findById(teamId, memberId);
    if (!m) throw notFound('session');
    return m;
  };

  return {
    /**
     * Uses the sign-in link whose token hashes to `linkTokenHash` and opens a session with the token
     * the gateway drew (its hash), in one transaction; the new session is the actor of its event.
     */
    async exchange(
      ctx: RequestContext,
      input: { linkTokenHash: string; sessionTokenHash: string; userAgent: string | null; mode: Partition },
    ): Promise<SessionAccess> {
      const findLink = (session?: mongoose.ClientSession) =>
        db(ctx).signInLinks.findOne({ tokenHash: input.linkTokenHash }).session(session ?? null).lean<SignInLinkDoc>();
      const usable = (link: SignInLinkDoc | null, now: Date): SignInLinkDoc => {
        if (!link) throw new ApiError('sign_in_link_invalid', 'This sign-in link is not valid; request a new one.', 'token');
        if (link.usedAt) throw new ApiError('sign_in_link_used', 'This sign-in link was already used; each link signs in once.', 'token');
        if (link.expiresAt <= now) throw new ApiError('sign_in_link_expired', 'This sign-in link has expired (they work 15 minutes); request a new one.', 'token');
        return link;
      };
      const first = usable(await findLink(), new Date());
      const member = await members.findById(ctx.teamId, first.memberId);
      if (!member) throw new ApiError('sign_in_link_invalid', 'This sign-in link\'s member has left the team.', 'token');
      const sessionId = newId('session');
      const scope = { teamId: ctx.teamId, mode: input.mode, requestId: ctx.requestId, actor: { type: 'member' as const, id: member._id, sessionId } };
      const doc = await withOutbox(conn, scope, async (session, emit) => {
        const now = new Date();
        const link = await db(ctx).signInLinks.findOneAndUpdate(
          { _id: first._id, usedAt: null, expiresAt: { $gt: now } },
          { $set: { usedAt: now, sessionId } },
          { session, returnDocument: 'after' },
        ).lean<SignInLinkDoc>();
        // Used or expired meanwhile (two clicks at once): the same refusal a later attempt gets.
        if (!link) usable(await findLink(session), now);
        const s: Unscoped<SessionDoc> = {
          _id: sessionId,
          partition: input.mode,
          memberId: member._id,
          tokenHash: input.sessionTokenHash,
          signInLinkId: first._id,
          userAgent: input.userAgent ? input.userAgent.slice(0, USER_AGENT_MAX) : null,
          createdAt: now,
          lastUsedAt: now,
          expiresAt: new Date(now.getTime() + SESSION_MAX_AGE_MS),
          endedAt: null,
          endReason: null,
        };
        await db(ctx).sessions.create([s], { session });
        emit({ type: 'session.created', data: { session: sessionSnapshot(s), signInLinkId: first._id } });
        return s;
      });
      return accessOf(ctx.teamId, doc, member);
    },

    /**
     * The open session of this token hash with its member's role and the team (the gateway's look-up,
     * cached there for seconds), or null. Marks it used, at most once a minute.
     */
    async access(teamId: string, tokenHash: string): Promise<SessionAccess | null> {
      const now = new Date();
      const s = await db({ teamId }).sessions.findOne({ tokenHash, ...openAt(now) }).lean<SessionDoc>();
      if (!s) return null;
      const member = await members.findById(teamId, s.memberId);
      if (!member) return null;
      if (now.getTime() - s.lastUsedAt.getTime() >= TOUCH_EVERY_MS) {
        await db({ teamId }).sessions.updateOne({ _id: s._id, lastUsedAt: s.lastUsedAt }, { $set: { lastUsedAt: now } });
        s.lastUsedAt = now;
      }
      return accessOf(teamId, s, member);
    },

    /** Open sessions of the caller's member, or of `memberId` (another member's need `manage_members`), most recently used first. */
    async list(ctx: RequestContext, q: ListSessionsQuery) {
      const memberId = q.memberId ?? ctx.memberId;
      if (q.memberId && q.memberId !== ctx.memberId) {
        if (!ctx.permissions.includes('manage_members')) {
          throw new ApiError('insufficient_permissions', "Listing another member's sessions needs the permission manage_members.", 'memberId');
        }
        await members.get(ctx, q.memberId);
      }
      if (!memberId) return [];
      const rows = await db(ctx).sessions.find({ memberId, ...openAt(new Date()) }).sort({ lastUsedAt: -1, _id: 1 }).limit(100).lean<SessionDoc[]>();
      const current = ctx.keyType === 'session' ? ctx.keyId : null;
      return rows.map((s) => sessionView(s, current));
    },

    /** Ends a session: the caller's member's own, or any with `manage_members`. */
    async revoke(ctx: RequestContext, id: string): Promise<{ id: string; deleted: true }> {
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const s = await db(ctx).sessions.findOne({ _id: id, ...openAt(new Date()) }).session(session).lean<SessionDoc>();
        if (!s) throw notFound('session', id);
        if (s.memberId !== ctx.memberId && !ctx.permissions.includes('manage_members')) {
          throw new ApiError('insufficient_permissions', "Revoking another member's session needs the permission manage_members.");
        }
        if (!(await endSession(models, s, 'revoked', session, emit))) throw notFound('session', id);
      });
      return { id, deleted: true };
    },

    /** The calling session switches partition (`session.updated`). */
    async updateOwn(ctx: RequestContext, mode: Partition): Promise<SessionAccess> {
      const next = await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const s = await own(ctx, session);
        if (s.partition === mode) return s;
        await db(ctx).sessions.updateOne({ _id: s._id }, { $set: { partition: mode } }, { session });
        const updated = { ...s, partition: mode };
        emit({ type: 'session.updated', data: { session: sessionSnapshot(updated), changes: ['mode'], previous: { mode: s.partition } } });
        return updated;
      });
      return accessOf(ctx.teamId, next, await memberOf(ctx.teamId, next.memberId));
    },

    /** The calling session signs out. */
    async endOwn(ctx: RequestContext): Promise<{ id: string; deleted: true }> {
      await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        if (!(await endSession(models, await own(ctx, session), 'signed_out', session, emit))) throw notFound('session', ctx.keyId);
      });
      return { id: ctx.keyId, deleted: true };
    },
  };
}

export type SessionRules = ReturnType<typeof sessionRules>;
