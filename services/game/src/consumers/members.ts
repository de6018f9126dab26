import { consumeOnce, on, type Subscription, type TypedEvent } from '@helpdesk/kit';
import type mongoose from 'mongoose';
import type { GameMemberRules } from '../members/rules';
import { CONSUMER } from '../tickets/batch';

/** The workspace's members and switches, as the game keeps them. Every write drops its cached copy once committed (members/rules.ts). */
export function memberSubscriptions(conn: mongoose.Connection, members: GameMemberRules): Subscription[] {
  const upsertMember = (e: TypedEvent<'member.joined' | 'member.role_changed'>) =>
    members.afterMemberWrite(e.teamId, e.data.member.id, () => consumeOnce(conn, CONSUMER, e, (s) => members.upsert(e.teamId, e.data.member, s))).then(() => {});
  return [
    on('member.joined', upsertMember),
    on('member.role_changed', upsertMember),
    on('member.removed', (e) => members.afterMemberWrite(e.teamId, e.data.member.id, () => consumeOnce(conn, CONSUMER, e, (s) => members.remove(e.teamId, e.data.member, s))).then(() => {})),
    on('member.preferences_updated', (e) =>
      members.afterMemberWrite(e.teamId, e.data.memberId, () => consumeOnce(conn, CONSUMER, e, (s) => members.setBoringMode(e.teamId, e.data.memberId, e.data.preferences.boringMode, s))).then(() => {}),
    ),
    on('feature_flags.updated', (e) => members.afterFlagsWrite(e.teamId, () => consumeOnce(conn, CONSUMER, e, (s) => members.setFlags(e.teamId, e.data.featureFlags, s))).then(() => {})),
  ];
}
