/**
 * Who am I, through the whole platform: `userId` defaults to the key's own member in the game and
 * notifications operations (400 naming `userId` for a key of no member), and the XP a close pays shows
 * on `GET /members/{id}` in the partition that played it, also after the platform restarts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { eventually, expectError, expectOk } from './helpdesk-helpers';
import { closeTicket, customerTicket } from './game-helpers';
import { addMember, WorkspaceEvents, type TestMember } from './workspace-helpers';

let dataDir: string;
let tp: TestPlatform;
let team: TeamKeys;
let ada: TestMember;

beforeAll(async () => {
  // On disk, so the restart below finds what the first run wrote.
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'helpdesk-members-'));
  tp = await startTestPlatform({ dataDir });
  team = await tp.createTeam('Who Am I Co');
  // Invited with a test key: her first key is a test key, as the README's quick start uses.
  ada = await addMember(tp, await WorkspaceEvents.start(tp), team, 'agent', team.sk_test);
}, 90_000);
afterAll(async () => {
  await tp?.stop();
  await rm(dataDir, { recursive: true, force: true });
}, 60_000);

const T = () => `/teams/${team.teamId}`;

describe('userId defaults to the key\'s member', () => {
  it('whoami names the key\'s member; a key of no member has none', async () => {
    expect(expectOk(await tp.api.get('/auth/whoami', { key: ada.key }), 200)).toMatchObject({ teamId: team.teamId, environment: 'test', memberId: ada.id });
    const operatorKey = (await tp.platform.gateway.admin.createKey({ teamId: team.teamId, type: 'secret', mode: 'test', memberId: null })).key;
    expect(expectOk(await tp.api.get('/auth/whoami', { key: operatorKey }), 200).memberId).toBeNull();
  });

  it('GET /game/player without userId is the caller\'s own player', async () => {
    const own = expectOk(await tp.api.get(`${T()}/game/player`, { key: ada.key }), 200);
    expect(own).toMatchObject({ object: 'player_stats', memberId: ada.id });
    // Named explicitly, the same answer.
    expect(expectOk(await tp.api.get(`${T()}/game/player?userId=${ada.id}`, { key: ada.key }), 200).memberId).toBe(ada.id);
  });

  it('the notifications list, unread count and settings without userId are the caller\'s own', async () => {
    expect(expectOk(await tp.api.get(`${T()}/notifications`, { key: ada.key }), 200)).toEqual([]);
    expect(expectOk(await tp.api.get(`${T()}/notifications/unread-count`, { key: ada.key }), 200)).toEqual({ unreadCount: 0, truncated: false });
    expect(expectOk(await tp.api.post(`${T()}/notifications/mark-all-read`, {}, { key: ada.key }), 200)).toEqual({ markedRead: 0 });
    expect(expectOk(await tp.api.get(`${T()}/notifications/preferences`, { key: ada.key }), 200)).toEqual({ memberId: ada.id, email: false });
    expect(expectOk(await tp.api.patch(`${T()}/notifications/preferences`, { email: true }, { key: ada.key }), 200)).toEqual({ memberId: ada.id, email: true });
  });

  it('a key of no member (an operator\'s) must name one: 400 parameter_missing naming userId, saying why', async () => {
    const operatorKey = (await tp.platform.gateway.admin.createKey({ teamId: team.teamId, type: 'secret', mode: 'test', memberId: null })).key;
    for (const p of ['/game/player', '/notifications', '/notifications/unread-count', '/notifications/preferences']) {
      const res = await tp.api.get(`${T()}${p}`, { key: operatorKey });
      expectError(res, 400, 'invalid_request_error', 'parameter_missing', 'userId');
      expect(res.body.error.message).toMatch(/userId .*this API key belongs to no member/);
    }
    expectError(await tp.api.post(`${T()}/notifications/mark-all-read`, {}, { key: operatorKey }), 400, 'invalid_request_error', 'parameter_missing', 'userId');
    // The owner's key (every key the platform's admin makes belongs to the owner unless told otherwise) needs none.
    const owner = expectOk(await tp.api.get(`${T()}/members?role=owner`, { key: team.sk_test }), 200)[0];
    const owners = expectOk(await tp.api.get(`${T()}/notifications`, { key: team.sk_test }), 200);
    expect(owners.map((n: { memberId: string; type: string }) => [n.memberId, n.type])).toEqual([[owner.id, 'invite_accepted']]);
  });

  it('a bad or unknown userId is refused as before', async () => {
    expectError(await tp.api.get(`${T()}/game/player?userId=nobody`, { key: ada.key }), 400, 'invalid_request_error', 'parameter_invalid', 'userId');
    expectError(await tp.api.get(`${T()}/notifications?userId=mem_${'x'.repeat(24)}`, { key: ada.key }), 404, 'not_found_error', 'resource_not_found', 'userId');
  });
});

describe('XP on the member', () => {
  it('a test-partition close shows on GET /members/{id} for test keys (the live partition\'s game stays 0), and after a restart', async () => {
    const t = await customerTicket(tp, team, ada.key);
    await closeTicket(tp, team, ada.key, t.id);
    const paid = await eventually('the close paid', async () => {
      const p = expectOk(await tp.api.get(`${T()}/game/player`, { key: ada.key }), 200);
      return p.xp > 0 ? p : null;
    });
    const member = await eventually('the member shows the XP', async () => {
      const m = expectOk(await tp.api.get(`${T()}/members/${ada.id}`, { key: ada.key }), 200);
      return m.xp === paid.xp ? m : null;
    });
    expect(member).toMatchObject({ id: ada.id, xp: paid.xp, level: paid.level });
    expect(expectOk(await tp.api.get(`${T()}/members`, { key: team.sk_test }), 200).find((m: { id: string }) => m.id === ada.id).xp).toBe(paid.xp);
    // The live partition's game has not played: a live key sees 0.
    expect(expectOk(await tp.api.get(`${T()}/members/${ada.id}`, { key: team.sk_live }), 200)).toMatchObject({ xp: 0, level: 1 });

    await tp.stop();
    tp = await startTestPlatform({ dataDir });
    expect(expectOk(await tp.api.get(`${T()}/members/${ada.id}`, { key: ada.key }), 200)).toMatchObject({ xp: paid.xp, level: paid.level });
    expect(expectOk(await tp.api.get(`${T()}/game/player`, { key: ada.key }), 200)).toMatchObject({ memberId: ada.id, xp: paid.xp });
  }, 90_000);
});
