import { createHash } from 'node:crypto';
import type mongoose from 'mongoose';
import type { MemberSnapshot, Page, Role } from '@helpdesk/contracts';
import {
  LookupCache,
  conflict,
  conflictOnDuplicate,
  eventScopeOf,
  findPage,
  foundOr404,
  newId,
  parameterInvalid,
  scoped,
  withOutbox,
  type Emit,
  type RequestContext,
  type Unscoped,
} from '@helpdesk/kit';
import type { WorkspaceModels } from '../collections';
import { endMemberSessions } from '../sessions/end';
import type { MemberDoc } from './model';
import { memberView } from './view';

export interface MemberRulesDeps {
  conn: mongoose.Connection;
  models: WorkspaceModels;
  /** The service's `soleInstance`: members' names are then kept per process (docs/adr/0045). */
  soleInstance?: boolean;
}

/**
 * A person's account id: derived from the email, so one person has the same `userId` in every team
 * they join (there is no account service yet; docs/adr/0012).
 */
export function userIdOf(emailLower: string): string {
  const h = createHash('sha256').update(`helpdesk-user:${emailLower}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export interface NewMember {
  /** Chosen beforehand when events must name the member before it exists. */
  id?: string;
  name: string;
  email: string;
  role: Role;
  avatarUrl?: string | null;
}

const emailTaken = (email: string) => ({ emailLower: { param: 'email', message: `${email} is already a member of this team.` } });

/** The rules of members: roles, removal, preferences, and the member a new team or an accepted invite makes. */
export function memberRules({ conn, models, soleInstance = false }: MemberRulesDeps) {
  const db = (ctx: { teamId: string }) => scoped(models, { teamId: ctx.teamId });
  /**
   * Members' names by `teamId:memberId` (the audit log names every event's member): kept only when
   * this is the service's sole instance, only for members found (a name never changes; a removal
   * drops it once committed; docs/adr/0045).
   */
  const names = new LookupCache<string | null>({ enabled: soleInstance, maxEntries: 10_000, keep: (name) => name !== null });
  const find = (ctx: RequestContext, id: string, session?: mongoose.ClientSession) =>
    foundOr404(db(ctx).members.findOne({ _id: id }).session(session ?? null).lean<MemberDoc>(), 'member', id);

  return {
    /** Oldest first: the owner leads. */
    async list(ctx: RequestContext, q: { role?: Role; page: number; pageSize: number }): Promise<Page<MemberSnapshot>> {
      const { rows, pagination } = await findPage(db(ctx).members, q.role ? { role: q.role } : {}, q, { sort: { joinedAt: 1, _id: 1 } });
      return { data: rows.map((m) => memberView(m, ctx.mode)), pagination };
    },

    get: async (ctx: RequestContext, id: string) => memberView(await find(ctx, id), ctx.mode),

    /** A member's name, or null when there is no such member. */
    nameOf(teamId: string, id: string): Promise<string | null> {
      return names.get(`${teamId}:${id}`, async () => (await db({ teamId }).members.findOne({ _id: id }, { name: 1 }).lean<Pick<MemberDoc, 'name'>>())?.name ?? null);
    },

    /** A member by id, or null (the gateway's look-up). */
    async findById(teamId: string, id: string): Promise<MemberDoc | null> {
      return db({ teamId }).members.findOne({ _id: id }).lean<MemberDoc>();
    },

    async changeRole(ctx: RequestContext, id: string, role: Role): Promise<{ id: string; role: Role }> {
      if (role === 'owner') throw parameterInvalid('role', 'Invalid role: a team has exactly one owner; nobody can be made owner.');
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await find(ctx, id, session);
        if (cur.role === 'owner') throw conflict("The owner's role cannot be changed.", 'role');
        if (cur.role === role) return { id, role };
        const next = await db(ctx).members.findOneAndUpdate(
          { _id: id, role: cur.role },
          { $set: { role, updatedAt: new Date() } },
          { session, returnDocument: 'after' },
        ).lean<MemberDoc>();
        if (!next) throw conflict('The member changed meanwhile; retry.');
        emit({ type: 'member.role_changed', data: { member: memberView(next), previousRole: cur.role } });
        // A new role starts with a new sign-in (docs/adr/0068).
        await endMemberSessions(models, ctx.teamId, id, 'role_changed', session, emit);
        return { id, role };
      });
    },

    async remove(ctx: RequestContext, id: string): Promise<{ id: string; deleted: true }> {
      await names.afterWrite(`${ctx.teamId}:${id}`, () =>
        withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
          const cur = await find(ctx, id, session);
          if (cur.role === 'owner') throw conflict('The owner cannot be removed.');
          await db(ctx).members.deleteOne({ _id: id, role: cur.role }, { session });
          emit({ type: 'member.removed', data: { memberId: id, member: memberView(cur) } });
          await endMemberSessions(models, ctx.teamId, id, 'member_removed', session, emit);
        }),
      );
      return { id, deleted: true };
    },

    getPreferences: async (ctx: RequestContext, id: string) => ({ ...(await find(ctx, id)).preferences }),

    async updatePreferences(ctx: RequestContext, id: string, input: { boringMode: boolean }): Promise<{ boringMode: boolean }> {
      return withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await find(ctx, id, session);
        if (cur.preferences.boringMode === input.boringMode) return { ...cur.preferences };
        await db(ctx).members.updateOne({ _id: id }, { $set: { 'preferences.boringMode': input.boringMode, updatedAt: new Date() } }, { session });
        const preferences = { boringMode: input.boringMode };
        emit({ type: 'member.preferences_updated', data: { memberId: id, preferences, changes: ['boringMode'], previous: { boringMode: cur.preferences.boringMode } } });
        return preferences;
      });
    },

    /** Inserts a member inside the caller's transaction (an accepted invite, a new team's owner); 409 when the email is taken. */
    async insert(teamId: string, input: NewMember, session: mongoose.ClientSession): Promise<Unscoped<MemberDoc>> {
      const emailLower = input.email.toLowerCase();
      const now = new Date();
      const doc: Unscoped<MemberDoc> = {
        _id: input.id ?? newId('member'),
        userId: userIdOf(emailLower),
        name: input.name,
        email: input.email,
        emailLower,
        avatarUrl: input.avatarUrl ?? null,
        role: input.role,
        preferences: { boringMode: false },
        level: 1,
        xp: 0,
        joinedAt: now,
        updatedAt: now,
      };
      await conflictOnDuplicate(() => db({ teamId }).members.create([doc], { session }), emailTaken(input.email));
      return doc;
    },

    /** Whether someone with this email is a member (case-insensitive). */
    async hasEmail(teamId: string, email: string, session?: mongoose.ClientSession): Promise<boolean> {
      return !!(await db({ teamId }).members.exists({ emailLower: email.toLowerCase() }).session(session ?? null));
    },

    /** The team's owner, if it has one. */
    async owner(teamId: string, session?: mongoose.ClientSession): Promise<MemberDoc | null> {
      return db({ teamId }).members.findOne({ role: 'owner' }).session(session ?? null).lean<MemberDoc>();
    },

    /** `team`: the new team's name and slug, when the member joined by creating it (the help center's address needs the slug). */
    emitJoined(emit: Emit, member: Unscoped<MemberDoc>, via: 'team_created' | 'invite', inviteId: string | null, team?: { name: string; slug: string }): void {
      emit({ type: 'member.joined', data: { member: memberView(member), via, inviteId, ...(team ? { team } : {}) } });
    },
  };
}

export type MemberRules = ReturnType<typeof memberRules>;
