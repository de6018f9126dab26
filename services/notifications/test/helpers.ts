import { randomUUID } from 'node:crypto';
import type { MemberSnapshot, Partition } from '@helpdesk/contracts';
import { newId } from '@helpdesk/kit';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { envelope, startServiceHarness, type ServiceHarness } from '@helpdesk/testing';
import { startNotifications, type NotificationsOptions, type NotificationsRules } from '../src';

export { call, envelope, expectError, messageFixture, ticketFixture, TEAM_A, TEAM_B, TEST_INTERNAL_SECRET as SECRET, type Caller } from '@helpdesk/testing';

export type Harness = ServiceHarness<NotificationsRules>;

export type MailOptions = Partial<Pick<NotificationsOptions, 'workspaceUrl' | 'smtpUrl' | 'dataDir' | 'mailRetryDelaysMs'>>;

/**
 * The notifications service on the shared harness; records every notification.* event. Mail goes to
 * files under a temporary folder unless `mail` says otherwise, and is looked for every 20 ms.
 */
export const startHarness = (mail: MailOptions = {}): Promise<Harness> =>
  startServiceHarness(
    (opts) =>
      startNotifications({
        ...opts,
        workspaceUrl: 'http://127.0.0.1:9',
        dataDir: mkdtempSync(path.join(os.tmpdir(), 'notifications-test-')),
        mailPollIntervalMs: 20,
        ...mail,
      }),
    { observe: ['notification.#'] },
  );

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
export async function joinMember(h: Harness, teamId: string, name: string, mode: Partition = 'test'): Promise<MemberSnapshot> {
  const member = memberFixture(name);
  await h.publish(envelope('member.joined', { member, via: 'invite', inviteId: null }, { teamId, mode }));
  return member;
}
