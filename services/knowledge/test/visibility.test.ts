/**
 * Telling a client why a thing is not visible: the help center's address per partition (from the
 * workspace's events about the team's slug), and each article's effective public visibility.
 */
import { randomUUID } from 'node:crypto';
import type { MemberSnapshot } from '@helpdesk/contracts';
import { newId } from '@helpdesk/kit';
import { envelope, expectError, startServiceHarness, TEAM_A, TEAM_B, type ServiceHarness } from '@helpdesk/testing';
import { startKnowledge, type KnowledgeRules } from '../src';

let h: ServiceHarness<KnowledgeRules>;
beforeAll(async () => {
  h = await startServiceHarness(startKnowledge, { observe: ['article.#', 'category.#'] });
}, 30_000);
afterAll(async () => {
  await h?.stop();
});

const HC = '/teams/{team}/help-center';
const A = '/teams/{team}/articles';
const owner = (): MemberSnapshot => ({
  id: newId('member'), userId: randomUUID(), name: 'Olive Owner', email: 'olive@example.com', avatarUrl: null, role: 'owner',
  roleDisplayName: 'Guild Master', permissions: ['view_articles'], level: 1, xp: 0, joinedAt: new Date().toISOString(),
});
const settings = (teamSlug: string) => ({
  teamName: 'Acme', teamSlug, defaultTimezone: 'UTC', defaultLanguage: 'en', supportEmail: null, autoCloseResolvedAfterDays: null,
});
const at = (ms: number) => ({ occurredAt: new Date(Date.UTC(2026, 0, 1) + ms).toISOString() });

describe('the help center\'s address', () => {
  test('unknown until the workspace announces the team; then per partition, following the slug\'s changes (never an older one)', async () => {
    expect((await h.api('GET', HC)).body.data).toEqual({ object: 'help_center', enabled: false, title: null, updatedAt: null, teamSlug: null, url: null, urls: null });
    await h.publish({ ...envelope('member.joined', { member: owner(), via: 'team_created', inviteId: null, team: { name: 'Acme', slug: 'acme' } }, { teamId: TEAM_A }), ...at(0) });
    const test = (await h.api('GET', HC)).body.data;
    expect(test).toMatchObject({ teamSlug: 'acme', url: '/help/acme?mode=test', urls: { live: '/help/acme', test: '/help/acme?mode=test' } });
    const live = (await h.api('PATCH', HC, { body: { enabled: true }, as: { mode: 'live' } })).body.data;
    expect(live).toMatchObject({ enabled: true, url: '/help/acme', urls: { live: '/help/acme', test: '/help/acme?mode=test' } });
    // Each partition its own switch: the test one is still off.
    expect((await h.api('GET', HC)).body.data.enabled).toBe(false);

    await h.publish({ ...envelope('settings.updated', { settings: settings('acme-support'), changes: ['teamSlug'], previous: { teamSlug: 'acme' } }, { teamId: TEAM_A }), ...at(2) });
    expect((await h.api('GET', HC)).body.data.url).toBe('/help/acme-support?mode=test');
    // An older announcement arriving late changes nothing; another team's is its own.
    await h.publish({ ...envelope('settings.updated', { settings: settings('acme-old'), changes: ['teamSlug'], previous: {} }, { teamId: TEAM_A }), ...at(1) });
    expect((await h.api('GET', HC)).body.data.teamSlug).toBe('acme-support');
    expect((await h.api('GET', HC, { as: { teamId: TEAM_B } })).body.data.teamSlug).toBeNull();
    // An invited member's joining says nothing about the slug.
    await h.publish({ ...envelope('member.joined', { member: owner(), via: 'invite', inviteId: null }, { teamId: TEAM_A }), ...at(3) });
    expect((await h.api('GET', HC)).body.data.teamSlug).toBe('acme-support');
  });

  test('bad inputs on the switch are refused as before', async () => {
    expectError(await h.api('PATCH', HC, { body: { enabled: 'yes' } }), 400, 'parameter_invalid', 'enabled');
    expectError(await h.api('PATCH', HC, { body: { url: '/help/x' } }), 400, 'parameter_invalid', 'url');
  });
});

describe('an article\'s public visibility', () => {
  test('every reason it is hidden, until none is left; the help center\'s switch only affects helpCenterVisible', async () => {
    const teamId = TEAM_B; // its own partition's switch and categories
    const as = { teamId, mode: 'live' as const };
    const category = (await h.api('POST', '/teams/{team}/categories', { body: { name: 'Printers' }, as })).body.data;
    const created = await h.api('POST', A, { body: { title: 'Resetting the printer', categoryId: category.id }, as });
    expect(created.body.data).toMatchObject({ publiclyVisible: false, helpCenterVisible: false, hiddenBecause: ['draft', 'not_public', 'category_private', 'help_center_off'] });
    const id = created.body.data.id;
    const patch = async (body: object) => (await h.api('PATCH', `${A}/${id}`, { body, as })).body.data;
    expect(await patch({ status: 'published', isPublic: true })).toMatchObject({ publiclyVisible: false, hiddenBecause: ['category_private', 'help_center_off'] });
    // A public category: publishable keys read it now; the help center is still off.
    await h.api('PATCH', `/teams/{team}/categories/${category.id}`, { body: { isPublic: true }, as });
    const read = (await h.api('GET', `${A}/${id}`, { as })).body.data;
    expect(read).toMatchObject({ publiclyVisible: true, helpCenterVisible: false, hiddenBecause: ['help_center_off'] });
    await h.api('PATCH', HC, { body: { enabled: true }, as });
    const listed = (await h.api('GET', A, { as })).body.data.find((a: { id: string }) => a.id === id);
    expect(listed).toMatchObject({ publiclyVisible: true, helpCenterVisible: true, hiddenBecause: [] });
    // What a publishable key reads says the same; a draft again is hidden for it.
    const pub = await h.api('GET', `${A}/${id}`, { as: { ...as, keyType: 'publishable', permissions: ['view_articles'] } });
    expect(pub.body.data).toMatchObject({ publiclyVisible: true, helpCenterVisible: true, hiddenBecause: [] });
    expect(await patch({ status: 'draft' })).toMatchObject({ publiclyVisible: false, helpCenterVisible: false, hiddenBecause: ['draft'] });
    // No category: nothing to be private.
    const loose = (await h.api('POST', A, { body: { title: 'Loose', status: 'published', isPublic: true }, as })).body.data;
    expect(loose).toMatchObject({ publiclyVisible: true, helpCenterVisible: true, hiddenBecause: [] });
  });
});
