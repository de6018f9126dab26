import { on, type Subscription } from '@helpdesk/kit';
import type { MemberRules } from '../members/rules';

/** The members assignment accepts (docs/adr/0025). */
export const memberEventConsumers = (members: Pick<MemberRules, 'upsert' | 'remove'>): Subscription[] => [
  on('member.joined', (e) => members.upsert(e.teamId, e.data.member)),
  on('member.role_changed', (e) => members.upsert(e.teamId, e.data.member)),
  on('member.removed', (e) => members.remove(e.teamId, e.data.member)),
];
