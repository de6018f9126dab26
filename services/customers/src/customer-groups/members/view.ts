import type { z } from 'zod';
import type { groupMemberSchema } from '@helpdesk/contracts';
import type { CustomerDoc } from '../../customers/model';
import type { MembershipDoc } from './model';

/** The spec's group member entry: `{id, object: 'customer', name, email, joinedGroupAt}`. */
export type GroupMemberView = z.output<typeof groupMemberSchema>;

type Member = Pick<CustomerDoc, '_id' | 'name' | 'email'>;

/** A member entry as events carry it: `{id, name, email, joinedGroupAt}`. */
export function memberSnapshot(m: Pick<MembershipDoc, 'joinedGroupAt'>, c: Member) {
  return { id: c._id, name: c.name, email: c.email ?? null, joinedGroupAt: new Date(m.joinedGroupAt).toISOString() };
}

export function memberView(m: Pick<MembershipDoc, 'joinedGroupAt'>, c: Member): GroupMemberView {
  const { id, ...rest } = memberSnapshot(m, c);
  return { id, object: 'customer', ...rest };
}
