import type mongoose from 'mongoose';
import type { MemberSnapshot } from '@helpdesk/contracts';
import { ApiError, parameterMissing, scoped } from '@helpdesk/kit';
import type { NotificationsModels } from '../collections';
import type { TeamMemberDoc } from './model';

/** What an `@mention` may name a member by, lowercase: their email, and their name without spaces (`@AdaLovelace`). */
export const handlesOf = (m: { name: string; email: string }) => [...new Set([m.email.toLowerCase(), m.name.replace(/\s+/g, '').toLowerCase()])];

/** The team's members, kept from `member.*` events; who `userId` and `@mentions` name. */
export function teamMemberRules({ models }: { models: NotificationsModels }) {
  // Members belong to the team (team-wide): one copy, whichever partition's key changed them.
  const db = (teamId: string) => scoped(models, { teamId }).members;
  return {
    /** A member joined, or changed (role): their name and email; a removed member stays removed. */
    async upsert(teamId: string, m: MemberSnapshot, session: mongoose.ClientSession) {
      await db(teamId).updateOne(
        { _id: m.id },
        {
          $set: { userId: m.userId.toLowerCase(), name: m.name, email: m.email, handles: handlesOf(m), updatedAt: new Date() },
          $setOnInsert: { boringMode: false, emailNotifications: false, removed: false },
        },
        { upsert: true, session },
      );
    },

    async remove(teamId: string, m: MemberSnapshot, session: mongoose.ClientSession) {
      await db(teamId).updateOne(
        { _id: m.id },
        { $set: { userId: m.userId.toLowerCase(), name: m.name, email: m.email, handles: [], removed: true, updatedAt: new Date() }, $setOnInsert: { boringMode: false, emailNotifications: false } },
        { upsert: true, session },
      );
    },

    async setPreferences(teamId: string, memberId: string, prefs: { boringMode: boolean }, session: mongoose.ClientSession) {
      await db(teamId).updateOne({ _id: memberId }, { $set: { boringMode: prefs.boringMode, updatedAt: new Date() } }, { session });
    },

    /** The current member a `userId` names (account UUID or `mem_…` id); 404 (param userId) otherwise. */
    async resolve(teamId: string, userId: string): Promise<TeamMemberDoc> {
      const filter = userId.startsWith('mem_') ? { _id: userId } : { userId: userId.toLowerCase() };
      const member = await db(teamId).findOne({ ...filter, removed: false }).lean<TeamMemberDoc>();
      if (!member) throw new ApiError('resource_not_found', `No member of this team has userId '${userId}'.`, 'userId');
      return member;
    },

    /**
     * The member a call is about: the one `userId` names, or, without it, the key's own member; a key
     * that belongs to no member must name one (400 parameter_missing, param userId).
     */
    async caller(ctx: { teamId: string; memberId: string | null }, userId: string | undefined): Promise<TeamMemberDoc> {
      if (userId) return this.resolve(ctx.teamId, userId);
      if (!ctx.memberId) throw parameterMissing('userId', "Missing required parameter: userId (it defaults to the key's own member, and this API key belongs to no member).");
      return this.resolve(ctx.teamId, ctx.memberId);
    },

    /** Current members by id (those who are not members any more are left out). */
    async byIds(teamId: string, ids: string[], session?: mongoose.ClientSession): Promise<TeamMemberDoc[]> {
      if (!ids.length) return [];
      return db(teamId).find({ _id: { $in: ids }, removed: false }, null, { session }).lean<TeamMemberDoc[]>();
    },

    /** Sets the member's own email setting; the member as it was before. */
    async setEmailNotifications(teamId: string, memberId: string, email: boolean, session: mongoose.ClientSession) {
      await db(teamId).updateOne({ _id: memberId }, { $set: { emailNotifications: email, updatedAt: new Date() } }, { session });
    },

    /** The team's current members who play (not in boring mode): who hears of the game's boss battles. */
    async players(teamId: string, session: mongoose.ClientSession): Promise<TeamMemberDoc[]> {
      return db(teamId).find({ removed: false, boringMode: false }, null, { session }).lean<TeamMemberDoc[]>();
    },

    /** Current members an `@mention` names. */
    async byHandles(teamId: string, handles: string[], session?: mongoose.ClientSession): Promise<TeamMemberDoc[]> {
      if (!handles.length) return [];
      return db(teamId).find({ handles: { $in: handles }, removed: false }, null, { session }).lean<TeamMemberDoc[]>();
    },
  };
}
export type TeamMemberRules = ReturnType<typeof teamMemberRules>;
