import { randomUUID } from 'node:crypto';
import type { MemberSnapshot } from '@helpdesk/contracts';
import { newId } from '@helpdesk/kit';
import { envelope, startDetached as detached, startServiceHarness, type ServiceHarness } from '@helpdesk/testing';
import { notificationsService, startNotifications, type NotificationsRules } from '../src';

export { call, envelope, expectError, messageFixture, ticketFixture, TEAM_A, TEAM_B, TEST_INTERNAL_SECRET as SECRET, type Caller } from '@helpdesk/testing';

export type Harness = ServiceHarness<NotificationsRules>;

/** The notifications service on the shared harness; records every notification.* event. */
export const startHarness = (): Promise<Harness> => startServiceHarness(startNotifications, { observe: ['notification.#'] });

/** The app with no database behind it. */
export const startDetached = () => detached(notificationsService);

/** A member as the workspace service's events carry it. */
export function memberFixture(name: string, fields: Partial<MemberSnapshot> = {}): MemberSnapshot {
  return {
    id: newId('member'),
    userId: randomUUID(),
    name,
    email: `${name.replace(/\s+/g, '.').toLowerCase()}.${Math.random().toString(36).slice(2, 8)}@example.com`,
    avatarUrl: null,
    role: 'agent',
    roleDisplayName: 'Adventurer',
    permissions: ['view_tickets'],
    level: 1,
    xp: 0,
    joinedAt: new Date().toISOString(),
    ...fields,
  };
}

/** Publishes `member.joined` for a new member of `teamId` and answers the member. */
export async function joinMember(h: Harness, teamId: string, name: string, mode: 'test' | 'live' = 'test'): Promise<MemberSnapshot> {
  const member = memberFixture(name);
  await h.publish(envelope('member.joined', { member, via: 'invite', inviteId: null }, { teamId, mode }));
  return member;
}
