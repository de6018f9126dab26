import { FEATURE_FLAGS } from '@helpdesk/contracts';
import { eventually } from '@helpdesk/testing';
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { expectError, expectOk } from './helpdesk-helpers';
import { addMember, WorkspaceEvents, type TestMember } from './workspace-helpers';

let tp: TestPlatform;
let log: WorkspaceEvents;
let team: TeamKeys;
let agent: TestMember;
const path = (p: string) => `/teams/${team.teamId}${p}`;
const get = (p: string, key = team.sk_test) => tp.api.get(path(p), { key });
const patch = (p: string, body: unknown, key = team.sk_test) => tp.api.patch(path(p), body, { key });

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await WorkspaceEvents.start(tp);
  team = await tp.createTeam('Settings Corp');
  agent = await addMember(tp, log, team, 'agent');
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

/** Refused with the documented error; nothing emitted for the request and the resource unchanged. */
async function refusedUnchanged(p: string, body: unknown, status: number, code: string, param: string | undefined, key = team.sk_test) {
  const before = expectOk(await get(p), 200);
  const res = await patch(p, body, key);
  const type = status === 403 ? 'authorization_error' : status === 409 ? 'conflict_error' : 'invalid_request_error';
  expectError(res, status, type, code, param);
  await log.settle(tp);
  expect(log.ofRequest(res.body.error.request_id)).toEqual([]);
  expect(expectOk(await get(p), 200)).toEqual(before);
}

describe('settings', () => {
  it('GET answers the team\'s settings with their defaults; any secret key of the team, either partition, reads them', async () => {
    const settings = expectOk(await get('/settings'), 200);
    expect(settings).toEqual({
      object: 'settings', teamName: 'Settings Corp', teamSlug: expect.stringMatching(/^settings-corp/), defaultTimezone: 'UTC',
      defaultLanguage: 'en', supportEmail: null, autoCloseResolvedAfterDays: null,
    });
    expect(expectOk(await get('/settings', team.sk_live), 200)).toEqual(settings);
    expect(expectOk(await get('/settings', agent.key), 200)).toEqual(settings);
    expectError(await get('/settings', team.pk_test), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await get('/settings', tp.otherTeam.sk_test), 403, 'authorization_error', 'team_access_denied');
  });

  it('PATCH changes what is given, emits settings.updated, and a rename reaches /auth/whoami within the key cache bound', async () => {
    const res = await patch('/settings', { teamName: 'Settings Corp EU', teamSlug: 'settings-eu', defaultTimezone: 'Europe/Berlin', defaultLanguage: 'de-CH', supportEmail: 'help@example.com', autoCloseResolvedAfterDays: 7 });
    expect(expectOk(res, 200)).toEqual({
      object: 'settings', teamName: 'Settings Corp EU', teamSlug: 'settings-eu', defaultTimezone: 'Europe/Berlin', defaultLanguage: 'de-CH',
      supportEmail: 'help@example.com', autoCloseResolvedAfterDays: 7,
    });
    const [e] = await log.waitForRequest(res.body.meta.requestId);
    expect(e).toMatchObject({ type: 'settings.updated', data: { changes: ['teamName', 'teamSlug', 'defaultTimezone', 'defaultLanguage', 'supportEmail', 'autoCloseResolvedAfterDays'], previous: { teamName: 'Settings Corp', defaultTimezone: 'UTC' } } });
    await eventually('whoami shows the new name', async () => {
      const who = expectOk(await tp.api.get('/auth/whoami', { key: team.sk_test }), 200);
      return who.teamName === 'Settings Corp EU' && who.teamSlug === 'settings-eu';
    }, 8_000);
    // null clears; an unchanged PATCH emits nothing
    expect(expectOk(await patch('/settings', { supportEmail: null, autoCloseResolvedAfterDays: null }), 200)).toMatchObject({ supportEmail: null, autoCloseResolvedAfterDays: null });
    const same = await patch('/settings', { teamName: 'Settings Corp EU' });
    expectOk(same, 200);
    await log.settle(tp);
    expect(log.ofRequest(same.body.meta.requestId)).toEqual([]);
  });

  it('a slug another team has is 409 param teamSlug', async () => {
    const other = expectOk(await tp.api.get(`/teams/${tp.otherTeam.teamId}/settings`, { key: tp.otherTeam.sk_test }), 200);
    await refusedUnchanged('/settings', { teamSlug: other.teamSlug }, 409, 'resource_conflict', 'teamSlug');
  });

  it.each([
    ['an unknown time zone', { defaultTimezone: 'Mars/Olympus' }, 'defaultTimezone'],
    ['a time zone of the wrong type', { defaultTimezone: 1 }, 'defaultTimezone'],
    ['a bad language tag', { defaultLanguage: 'english please' }, 'defaultLanguage'],
    ['a bad slug', { teamSlug: 'Not A Slug' }, 'teamSlug'],
    ['an empty name', { teamName: '  ' }, 'teamName'],
    ['a bad email', { supportEmail: 'help' }, 'supportEmail'],
    ['auto-close out of range', { autoCloseResolvedAfterDays: 0 }, 'autoCloseResolvedAfterDays'],
    ['an unknown field', { teamId: 'x' }, 'teamId'],
  ])('PATCH refuses %s', async (_n, body, param) => {
    await refusedUnchanged('/settings', body, 400, 'parameter_invalid', param);
  });

  it('PATCH needs manage_settings and a secret key', async () => {
    await refusedUnchanged('/settings', { teamName: 'Agents rule' }, 403, 'insufficient_permissions', undefined, agent.key);
    await refusedUnchanged('/settings', { teamName: 'Browsers rule' }, 403, 'publishable_key_write', undefined, team.pk_live);
  });
});

describe('ticket statuses', () => {
  it('lists the six protected statuses in order; PATCH changes label, colour and position and emits ticket_status.updated', async () => {
    const list = expectOk(await get('/settings/statuses'), 200);
    expect(list.map((s: any) => [s.key, s.position, s.isProtected])).toEqual(
      ['new', 'open', 'pending', 'resolved', 'closed', 'merged'].map((k, i) => [k, i, true]),
    );
    for (const s of list) expect(s.color).toMatch(/^#[0-9a-f]{6}$/);
    const res = await patch('/settings/statuses/pending', { label: 'Waiting on customer', color: '#ABCDEF', position: 9 });
    expect(expectOk(res, 200)).toEqual({ key: 'pending', label: 'Waiting on customer', color: '#abcdef', position: 9, isProtected: true });
    const [e] = await log.waitForRequest(res.body.meta.requestId);
    expect(e).toMatchObject({ type: 'ticket_status.updated', data: { status: { key: 'pending' }, changes: ['label', 'color', 'position'], previous: { label: 'Pending', position: 2 } } });
    expect(expectOk(await get('/settings/statuses'), 200).map((s: any) => s.key)).toEqual(['new', 'open', 'resolved', 'closed', 'merged', 'pending']);
  });

  it.each([
    ['a bad colour', 'open', { color: 'red' }, 400, 'parameter_invalid', 'color'],
    ['an empty label', 'open', { label: '' }, 400, 'parameter_invalid', 'label'],
    ['a negative position', 'open', { position: -1 }, 400, 'parameter_invalid', 'position'],
    ['a key change', 'open', { key: 'reopened' }, 400, 'parameter_invalid', 'key'],
  ])('PATCH refuses %s', async (_n, key, body, status, code, param) => {
    const before = expectOk(await get('/settings/statuses'), 200);
    expectError(await patch(`/settings/statuses/${key}`, body), status, 'invalid_request_error', code, param);
    expect(expectOk(await get('/settings/statuses'), 200)).toEqual(before);
  });

  it('an unknown status is 404; writes need manage_settings', async () => {
    expectError(await patch('/settings/statuses/escalated', { label: 'x' }), 404, 'not_found_error', 'resource_not_found');
    expectError(await patch('/settings/statuses/open', { label: 'x' }, agent.key), 403, 'authorization_error', 'insufficient_permissions');
  });
});

describe('business hours', () => {
  it('defaults; PATCH merges days, validates, replaces holidays in date order, emits business_hours.updated', async () => {
    const hours = expectOk(await get('/settings/business-hours'), 200);
    expect(hours).toMatchObject({ object: 'business_hours', enabled: false, timezone: 'UTC', holidays: [] });
    expect(hours.schedule.monday).toEqual({ enabled: true, start: '09:00', end: '17:00' });
    expect(hours.schedule.sunday).toEqual({ enabled: false, start: '09:00', end: '17:00' });
    const res = await patch('/settings/business-hours', {
      enabled: true,
      timezone: 'America/New_York',
      schedule: { monday: { start: '08:30' }, saturday: { enabled: true, start: '10:00', end: '14:00' } },
      holidays: [{ date: '2026-12-25', name: 'Christmas' }, { date: '2026-01-01' }],
    });
    const next = expectOk(res, 200);
    expect(next).toMatchObject({ enabled: true, timezone: 'America/New_York', holidays: [{ date: '2026-01-01', name: null }, { date: '2026-12-25', name: 'Christmas' }] });
    expect(next.schedule.monday).toEqual({ enabled: true, start: '08:30', end: '17:00' });
    expect(next.schedule.saturday).toEqual({ enabled: true, start: '10:00', end: '14:00' });
    const [e] = await log.waitForRequest(res.body.meta.requestId);
    expect(e).toMatchObject({ type: 'business_hours.updated', data: { changes: ['enabled', 'timezone', 'schedule', 'holidays'], previous: { timezone: 'UTC' } } });
  });

  it.each([
    ['an unknown time zone', { timezone: 'Europe/Atlantis' }, 'timezone'],
    ['a time not HH:MM', { schedule: { monday: { start: '9am' } } }, 'schedule.monday.start'],
    ['24:00', { schedule: { monday: { end: '24:00' } } }, 'schedule.monday.end'],
    ['an end before the start', { schedule: { tuesday: { start: '18:00' } } }, 'schedule.tuesday.end'],
    ['an unknown weekday', { schedule: { funday: { enabled: true } } }, 'schedule.funday'],
    ['a day field of the wrong type', { schedule: { friday: { enabled: 'yes' } } }, 'schedule.friday.enabled'],
    ['a date that does not exist', { holidays: [{ date: '2026-02-30' }] }, 'holidays.0.date'],
    ['the same date twice', { holidays: [{ date: '2026-05-01' }, { date: '2026-05-01' }] }, 'holidays'],
    ['an unknown field', { closedOnSundays: true }, 'closedOnSundays'],
  ])('PATCH refuses %s', async (_n, body, param) => {
    await refusedUnchanged('/settings/business-hours', body, 400, 'parameter_invalid', param);
  });
});

describe('widget', () => {
  it('defaults; PATCH sets position, colour, greeting and allowed origins; emits widget_settings.updated', async () => {
    expect(expectOk(await get('/settings/widget'), 200)).toMatchObject({ object: 'widget_settings', position: 'bottom-right', primaryColor: '#4f46e5', allowedOrigins: [] });
    const res = await patch('/settings/widget', { position: 'top-left', primaryColor: '#FF0000', greeting: 'Hello!', allowedOrigins: ['https://shop.example.com', 'http://localhost:3000'] });
    expect(expectOk(res, 200)).toEqual({ object: 'widget_settings', position: 'top-left', primaryColor: '#ff0000', greeting: 'Hello!', allowedOrigins: ['https://shop.example.com', 'http://localhost:3000'] });
    const [e] = await log.waitForRequest(res.body.meta.requestId);
    expect(e).toMatchObject({ type: 'widget_settings.updated', data: { changes: ['position', 'primaryColor', 'greeting', 'allowedOrigins'], previous: { position: 'bottom-right' } } });
  });

  it.each([
    ['a bad position', { position: 'middle' }, 'position'],
    ['a bad colour', { primaryColor: '#12345' }, 'primaryColor'],
    ['an origin with a path', { allowedOrigins: ['https://shop.example.com/cart'] }, 'allowedOrigins.0'],
    ['a non-web origin', { allowedOrigins: ['ftp://example.com'] }, 'allowedOrigins.0'],
    ['a greeting too long', { greeting: 'x'.repeat(281) }, 'greeting'],
    ['an unknown field', { theme: 'dark' }, 'theme'],
  ])('PATCH refuses %s', async (_n, body, param) => {
    await refusedUnchanged('/settings/widget', body, 400, 'parameter_invalid', param);
  });
});

describe('feature flags and team preferences', () => {
  it('every game feature is on by default; /preferences and /settings/feature-flags share bossBattlesEnabled', async () => {
    const flags = expectOk(await get('/settings/feature-flags'), 200);
    expect(flags).toEqual({ object: 'feature_flags', ...Object.fromEntries(FEATURE_FLAGS.map((f) => [f, true])) });
    expect(expectOk(await get('/preferences'), 200)).toEqual({ bossBattlesEnabled: true });
    const res = await patch('/preferences', { bossBattlesEnabled: false });
    expect(expectOk(res, 200)).toEqual({ bossBattlesEnabled: false });
    const [e] = await log.waitForRequest(res.body.meta.requestId);
    expect(e).toMatchObject({ type: 'feature_flags.updated', data: { changes: ['bossBattlesEnabled'], previous: { bossBattlesEnabled: true }, featureFlags: { bossBattlesEnabled: false, questsEnabled: true } } });
    expect(expectOk(await get('/settings/feature-flags'), 200).bossBattlesEnabled).toBe(false);
    const r2 = await patch('/settings/feature-flags', { bossBattlesEnabled: true, questsEnabled: false });
    expect(expectOk(r2, 200)).toMatchObject({ bossBattlesEnabled: true, questsEnabled: false, achievementsEnabled: true });
    expect(expectOk(await get('/preferences'), 200)).toEqual({ bossBattlesEnabled: true });
  });

  it('team preferences need manage_settings, even to read; bad bodies are 400', async () => {
    expectError(await get('/preferences', agent.key), 403, 'authorization_error', 'insufficient_permissions');
    await refusedUnchanged('/preferences', { bossBattlesEnabled: 'no' }, 400, 'parameter_invalid', 'bossBattlesEnabled');
    await refusedUnchanged('/preferences', {}, 400, 'parameter_missing', 'bossBattlesEnabled');
    await refusedUnchanged('/preferences', { bossBattlesEnabled: true, extra: 1 }, 400, 'parameter_invalid', 'extra');
    await refusedUnchanged('/settings/feature-flags', { dragonsEnabled: true }, 400, 'parameter_invalid', 'dragonsEnabled');
    await refusedUnchanged('/settings/feature-flags', { questsEnabled: true }, 403, 'insufficient_permissions', undefined, agent.key);
  });
});

describe('member preferences', () => {
  it('boringMode defaults to false; PATCH sets it and emits member.preferences_updated; needs manage_members', async () => {
    const p = `/members/${agent.id}/preferences`;
    expect(expectOk(await get(p), 200)).toEqual({ boringMode: false });
    const res = await patch(p, { boringMode: true });
    expect(expectOk(res, 200)).toEqual({ boringMode: true });
    const [e] = await log.waitForRequest(res.body.meta.requestId);
    expect(e).toMatchObject({ type: 'member.preferences_updated', data: { memberId: agent.id, preferences: { boringMode: true }, changes: ['boringMode'] } });
    expect(expectOk(await get(p), 200)).toEqual({ boringMode: true });
    expectError(await get(p, agent.key), 403, 'authorization_error', 'insufficient_permissions');
    await refusedUnchanged(p, { boringMode: 1 }, 400, 'parameter_invalid', 'boringMode');
    await refusedUnchanged(p, { boringMode: false, xp: 5 }, 400, 'parameter_invalid', 'xp');
    expectError(await get('/members/mem_000000000000000000000000/preferences'), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.get(`/teams/${tp.otherTeam.teamId}/members/${agent.id}/preferences`, { key: tp.otherTeam.sk_test }), 404, 'not_found_error', 'resource_not_found');
  });
});
