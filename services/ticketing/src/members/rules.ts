import type { MemberSnapshot } from '@helpdesk/contracts';
import { parameterInvalid, scoped, type Scope } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import type { MemberRefDoc } from './model';

/** The team's members as ticketing knows them from `member.*` events (docs/adr/0025). */
export function memberRules({ models }: { models: TicketingModels }) {
  return {
    /** `member.joined` / `member.role_changed`: known (again, unless removed since). */
    async upsert(teamId: string, m: MemberSnapshot): Promise<void> {
      await scoped(models, { teamId }).memberRefs.updateOne({ _id: m.id }, { $set: { name: m.name }, $setOnInsert: { removed: false } }, { upsert: true });
    },

    /** `member.removed`: the id cannot be assigned any more (tickets already assigned keep it). */
    async remove(teamId: string, m: MemberSnapshot): Promise<void> {
      await scoped(models, { teamId }).memberRefs.updateOne({ _id: m.id }, { $set: { name: m.name, removed: true } }, { upsert: true });
    },

    /** A current member of the scope's team, or a 400 on `param` (an unknown id, another team's, a removed member). */
    async assertMember(scope: Pick<Scope, 'teamId'>, memberId: string, param = 'assignedTo'): Promise<void> {
      const row = await scoped(models, { teamId: scope.teamId }).memberRefs.findOne({ _id: memberId }).lean<MemberRefDoc>();
      if (!row || row.removed) throw parameterInvalid(param, `Invalid ${param}: '${memberId}' is not a member of this team.`);
    },
  };
}
export type MemberRules = ReturnType<typeof memberRules>;
