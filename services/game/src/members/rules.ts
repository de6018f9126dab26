import type mongoose from 'mongoose';
import type { FeatureFlag, MemberSnapshot } from '@helpdesk/contracts';
import { ApiError, LookupCache, parameterMissing, scoped, type RequestContext } from '@helpdesk/kit';
import type { GameModels } from '../collections';
import { ALL_ON, type GameMemberDoc } from './model';

/**
 * The team's members and feature flags, kept from the workspace service's events; who `userId` names.
 * A payment looks both up: where this process is the service's only instance (`soleInstance`) they are
 * kept in lookup caches (kit LookupCache, docs/adr/0044), which only this service's consumers write,
 * and which they drop once each write commits (`afterMemberWrite`, `afterFlagsWrite`).
 */
export function gameMemberRules({ models, soleInstance = false }: { models: GameModels; soleInstance?: boolean }) {
  // Members and switches belong to the team (team-wide): one copy, whichever partition's key changed them.
  const db = (teamId: string) => scoped(models, { teamId });
  // A member not found is not kept (a member.joined may make it one any moment).
  const memberCache = new LookupCache<GameMemberDoc | null>({ enabled: soleInstance, maxEntries: 10_000, keep: (m) => m !== null });
  const flagsCache = new LookupCache<Record<FeatureFlag, boolean>>({ enabled: soleInstance });
  const resolve = async (teamId: string, ref: string, param: string): Promise<GameMemberDoc> => {
    const filter = ref.startsWith('mem_') ? { _id: ref } : { userId: ref.toLowerCase() };
    const member = await db(teamId).members.findOne({ ...filter, removed: false }).lean<GameMemberDoc>();
    if (!member) throw new ApiError('resource_not_found', `No member of this team is '${ref}'.`, param);
    return member;
  };
  return {
    async upsert(teamId: string, m: MemberSnapshot, session: mongoose.ClientSession) {
      // A removed member stays removed (an event arriving late never brings them back).
      if (await db(teamId).members.exists({ _id: m.id, removed: true }).session(session)) return;
      await db(teamId).members.updateOne(
        { _id: m.id },
        { $set: { userId: m.userId.toLowerCase(), name: m.name, avatarUrl: m.avatarUrl, updatedAt: new Date() }, $setOnInsert: { boringMode: false, removed: false } },
        { upsert: true, session },
      );
    },
    async remove(teamId: string, m: MemberSnapshot, session: mongoose.ClientSession) {
      await db(teamId).members.updateOne(
        { _id: m.id },
        { $set: { userId: m.userId.toLowerCase(), name: m.name, avatarUrl: m.avatarUrl, removed: true, updatedAt: new Date() }, $setOnInsert: { boringMode: false } },
        { upsert: true, session },
      );
    },
    async setBoringMode(teamId: string, memberId: string, boringMode: boolean, session: mongoose.ClientSession) {
      await db(teamId).members.updateOne({ _id: memberId }, { $set: { boringMode, updatedAt: new Date() } }, { session });
    },
    async setFlags(teamId: string, flags: Record<FeatureFlag, boolean>, session: mongoose.ClientSession) {
      await db(teamId).switches.updateOne({ _id: teamId }, { $set: { flags, updatedAt: new Date() } }, { upsert: true, session });
    },

    /** The team's switches (all on until the workspace says otherwise). Shared: read it, never change it. */
    async flags(teamId: string): Promise<Record<FeatureFlag, boolean>> {
      return flagsCache.get(teamId, async () => {
        const doc = await db(teamId).switches.findOne({ _id: teamId }).lean();
        return { ...ALL_ON, ...(doc?.flags ?? {}) };
      });
    },
    /** Runs a write of a member (its whole unit of work), then drops the member's cached copy. */
    afterMemberWrite: <R>(teamId: string, memberId: string, write: () => Promise<R>) => memberCache.afterWrite(`${teamId}:${memberId}`, write),
    /** Runs a write of the team's switches (its whole unit of work), then drops the cached switches. */
    afterFlagsWrite: <R>(teamId: string, write: () => Promise<R>) => flagsCache.afterWrite(teamId, write),
    /** 403 `feature_disabled` when the team switched `flag` off. */
    async requireFeature(teamId: string, flag: FeatureFlag): Promise<void> {
      if (!(await this.flags(teamId))[flag]) throw new ApiError('feature_disabled', `This team has switched off this game feature (${flag} is false).`);
    },

    /** The current member a `userId` names (account UUID or `mem_…`); 404 naming `param` otherwise. */
    resolve,
    /** The member an action is for: `userId` when given, else the key's own member (400 when the key has none). */
    async actor(ctx: RequestContext, userId: string | undefined): Promise<GameMemberDoc> {
      if (userId) return resolve(ctx.teamId, userId, 'userId');
      if (!ctx.memberId) throw parameterMissing('userId', 'Missing required parameter: userId (it defaults to the key\'s own member, and this API key belongs to no member).');
      return resolve(ctx.teamId, ctx.memberId, 'userId');
    },
    /** Current members by id (removed ones left out). */
    async byIds(teamId: string, ids: string[]): Promise<GameMemberDoc[]> {
      if (!ids.length) return [];
      return db(teamId).members.find({ _id: { $in: ids }, removed: false }).lean<GameMemberDoc[]>();
    },
    /** A current member by id (null when removed or unknown). Shared: read it, never change it. */
    async find(teamId: string, memberId: string): Promise<GameMemberDoc | null> {
      return memberCache.get(`${teamId}:${memberId}`, () => db(teamId).members.findOne({ _id: memberId, removed: false }).lean<GameMemberDoc>());
    },
  };
}
export type GameMemberRules = ReturnType<typeof gameMemberRules>;
