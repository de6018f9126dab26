import { randomBytes } from 'node:crypto';
import type { EventEnvelope } from '@helpdesk/contracts';
import type { TestPlatform, TeamKeys } from '../support/platform';
import { expectOk } from './helpdesk-helpers';

export const MEM_ID = /^mem_[A-Za-z0-9]{24}$/;
export const INV_ID = /^inv_[A-Za-z0-9]{24}$/;
export const MEMBER_KEYS = ['avatarUrl', 'email', 'id', 'joinedAt', 'level', 'name', 'permissions', 'role', 'roleDisplayName', 'userId', 'xp'];

/** Collects every event the workspace service publishes, for the file's lifetime. */
export class WorkspaceEvents {
  readonly events: EventEnvelope<any>[] = [];

  static async start(tp: TestPlatform): Promise<WorkspaceEvents> {
    const log = new WorkspaceEvents();
    const patterns = ['member.#', 'invite.#', 'settings.#', 'feature_flags.#', 'ticket_status.#', 'business_hours.#', 'widget_settings.#', 'api_key.#'];
    await tp.observe('workspace', patterns, async (e: EventEnvelope) => {
      log.events.push(e as EventEnvelope<any>);
    });
    return log;
  }

  ofRequest(requestId: string): EventEnvelope<any>[] {
    return this.events.filter((e) => e.requestId === requestId);
  }

  /** Polls (never a fixed sleep) until `count` events match; then returns them. */
  async waitFor(match: (e: EventEnvelope<any>) => boolean, count = 1, what = 'events', timeoutMs = 15_000): Promise<EventEnvelope<any>[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.filter(match);
      if (found.length >= count) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} ${what}; have ${JSON.stringify(found.map((e) => e.type))}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  waitForRequest(requestId: string, count = 1): Promise<EventEnvelope<any>[]> {
    return this.waitFor((e) => e.requestId === requestId, count, `events of request ${requestId}`);
  }

  /**
   * Proves nothing more is coming for earlier requests: a marker write (the second team's widget
   * greeting, outside what the tests look at) whose event arrives after anything the workspace
   * outbox committed before it.
   */
  async settle(tp: TestPlatform): Promise<void> {
    const greeting = `marker ${randomBytes(4).toString('hex')}`;
    const res = await tp.api.patch(`/teams/${tp.otherTeam.teamId}/settings/widget`, { greeting }, { key: tp.otherTeam.sk_test });
    expectOk(res, 200);
    await this.waitForRequest(res.body.meta.requestId, 1);
  }
}

/**
 * A working link for an invite, asked as the notifications service asks when it sends the
 * invitation. Each ask mints a new token and ends the earlier one, so it waits until the platform's
 * notifications service has sent (or given up on) its message: the link returned is the last one.
 */
export async function inviteLink(tp: TestPlatform, teamId: string, inviteId: string) {
  const invites = tp.platform.workspace.conn.collection('invites');
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 10))) {
    const invite = await invites.findOne({ _id: inviteId as any });
    if (!invite || invite.status !== 'pending' || invite.message?.status !== 'queued') break;
  }
  return tp.platform.workspace.rules.invites.issueLink({ teamId }, inviteId);
}

export interface TestMember {
  id: string;
  email: string;
  /** The member's first secret key (in the partition of the key that invited them). */
  key: string;
}

/** A member of `role` through the whole invitation flow: invite, the token from `member.invited`, accept. */
export async function addMember(tp: TestPlatform, log: WorkspaceEvents, team: TeamKeys, role: string, inviterKey = team.sk_test): Promise<TestMember> {
  const email = `m-${randomBytes(5).toString('hex')}@example.com`;
  const invite = expectOk(await tp.api.post(`/teams/${team.teamId}/invites`, { email, role }, { key: inviterKey }), 201);
  await log.waitFor((e) => e.type === 'member.invited' && e.data.invite.id === invite.id, 1, 'member.invited');
  const { token } = await inviteLink(tp, team.teamId, invite.id);
  const accepted = expectOk(await tp.api.withKey(null).post('/invites/accept', { token, name: `Member ${role}` }), 201);
  return { id: accepted.member.id, email, key: accepted.apiKey.key };
}
