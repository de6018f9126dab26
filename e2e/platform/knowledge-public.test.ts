import { startTestPlatform, type TestPlatform } from '../support/platform';
import { expectError, expectOk } from './helpdesk-helpers';
import { KnowledgeEvents, PUBLIC_ARTICLE_KEYS, createArticle, createCategory, expectRefusedWithoutEffect, originOf, teamSlugOf } from './knowledge-helpers';

/**
 * The public knowledge base: what publishable keys read (issue 13, rule 3), view counting, and the
 * keyless help center at `/help/{teamSlug}` over plain HTTP (its browser test is
 * knowledge-help-center.browser.test.ts).
 */
let tp: TestPlatform;
let log: KnowledgeEvents;
const articles = () => `${tp.teamPath}/articles`;

/** The public knowledge base of the first team's test partition, and what must never show in it. */
const kb: Record<string, any> = {};

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await KnowledgeEvents.start(tp);
  kb.publicCat = await createCategory(tp, { name: 'Account', isPublic: true, sortOrder: 1, description: 'Sign-in & profile' });
  kb.privateCat = await createCategory(tp, { name: 'Staff notes', isPublic: false });
  kb.visible = await createArticle(tp, { title: 'Reset your password', content: 'Use **Forgot password**.', categoryId: kb.publicCat.id, status: 'published', isPublic: true, metadata: { owner: 'secret-owner' } });
  kb.loose = await createArticle(tp, { title: 'Contact us', content: 'Write to support.', status: 'published', isPublic: true });
  kb.draft = await createArticle(tp, { title: 'Unreleased feature', content: 'password draft', categoryId: kb.publicCat.id, status: 'draft', isPublic: true });
  kb.private = await createArticle(tp, { title: 'Private runbook', content: 'password private', status: 'published', isPublic: false });
  kb.inPrivateCat = await createArticle(tp, { title: 'Filed privately', content: 'password filed', categoryId: kb.privateCat.id, status: 'published', isPublic: true });
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('publishable keys read the public knowledge base only', () => {
  it('the list holds published public articles in no category or a public one, without metadata, whatever the filters', async () => {
    const res = await tp.api.get(articles(), { key: tp.team.pk_test });
    const list = expectOk(res, 200);
    expect(list.map((a: any) => a.title).sort()).toEqual(['Contact us', 'Reset your password']);
    for (const a of list) expect(Object.keys(a).sort()).toEqual(PUBLIC_ARTICLE_KEYS);
    expect(res.body.meta.pagination.total).toBe(2);
    const titles = async (query: Record<string, string | boolean>) => expectOk(await tp.api.get(articles(), { key: tp.team.pk_test, query }), 200).map((a: any) => a.title);
    expect(await titles({ status: 'draft' })).toEqual([]);
    expect(await titles({ isPublic: false })).toEqual([]);
    expect(await titles({ category: kb.privateCat.id })).toEqual([]);
    expect(await titles({ search: 'password' })).toEqual(['Reset your password']);
    // the live partition's publishable key sees none of the test partition
    expect(await (async () => expectOk(await tp.api.get(articles(), { key: tp.team.pk_live }), 200))()).toEqual([]);
  });

  it('a draft, private, privately filed, other-partition or unknown article is the same 404 as a missing one', async () => {
    for (const a of [kb.draft, kb.private, kb.inPrivateCat]) {
      const res = await tp.api.get(`${articles()}/${a.id}`, { key: tp.team.pk_test });
      expectError(res, 404, 'not_found_error', 'resource_not_found');
      expect(res.body.error.message).toBe(`No such article: '${a.id}'.`);
    }
    expectError(await tp.api.get(`${articles()}/${kb.visible.id}`, { key: tp.team.pk_live }), 404, 'not_found_error', 'resource_not_found');
    expectError(await tp.api.get(`${articles()}/${kb.visible.id}`, { key: tp.otherTeam.pk_test }), 403, 'authorization_error', 'team_access_denied');
  });

  it('a visible article comes without metadata; each publishable read counts one view, staff reads and lists count none', async () => {
    const a = await createArticle(tp, { title: 'Counted', status: 'published', isPublic: true, metadata: { hidden: true } });
    const read = async () => expectOk(await tp.api.get(`${articles()}/${a.id}`, { key: tp.team.pk_test }), 200);
    const first = await read();
    expect(Object.keys(first).sort()).toEqual(PUBLIC_ARTICLE_KEYS);
    expect(first.viewCount).toBe(1);
    await read();
    await read();
    await tp.api.get(articles(), { key: tp.team.pk_test });
    const staff = expectOk(await tp.api.get(`${articles()}/${a.id}`), 200);
    expect(staff.viewCount).toBe(3);
    expect(staff.metadata).toEqual({ hidden: true });
    expect(expectOk(await tp.api.get(`${articles()}/${a.id}`), 200).viewCount).toBe(3);
    // stored in batches: once written, the count is in the database too (and stays exact)
    await tp.platform.knowledge.rules.views.flush();
    expect(expectOk(await tp.api.get(`${articles()}/${a.id}`), 200).viewCount).toBe(3);
    expect((await read()).viewCount).toBe(4);
  });

  it('staff-only reads and every write are refused to publishable keys, with nothing written', async () => {
    expectError(await tp.api.get(`${articles()}/${kb.visible.id}/revisions`, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await tp.api.get(`${tp.teamPath}/help-center`, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_forbidden');
    await expectRefusedWithoutEffect(tp, log, () => tp.api.patch(`${tp.teamPath}/help-center`, { enabled: true }, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    await expectRefusedWithoutEffect(tp, log, () => tp.api.delete(`${tp.teamPath}/categories/${kb.publicCat.id}`, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
  });
});

describe('the help-center switch (GET/PATCH /help-center)', () => {
  it('is off until turned on, per partition; PATCH sets enabled and title; bad input is 400 and changes nothing', async () => {
    const t = await tp.createTeam();
    const hc = `/teams/${t.teamId}/help-center`;
    const slug = await teamSlugOf(tp, t.sk_test);
    expect(expectOk(await tp.api.get(hc, { key: t.sk_test }), 200)).toEqual({
      object: 'help_center', enabled: false, title: null, updatedAt: null,
      // Where each partition's help center is served: the test key's is ?mode=test.
      teamSlug: slug, url: `/help/${slug}?mode=test`, urls: { live: `/help/${slug}`, test: `/help/${slug}?mode=test` },
    });
    expect(expectOk(await tp.api.get(hc, { key: t.sk_live }), 200).url).toBe(`/help/${slug}`);
    const on = expectOk(await tp.api.patch(hc, { enabled: true, title: 'Acme Help' }, { key: t.sk_test }), 200);
    expect(on).toMatchObject({ object: 'help_center', enabled: true, title: 'Acme Help' });
    expect(expectOk(await tp.api.get(hc, { key: t.sk_test }), 200)).toEqual(on);
    expect(expectOk(await tp.api.get(hc, { key: t.sk_live }), 200).enabled).toBe(false);
    for (const [body, param] of [[{ enabled: 'yes' }, 'enabled'], [{ title: '' }, 'title'], [{ theme: 'dark' }, 'theme']] as const) {
      expectError(await tp.api.patch(hc, body, { key: t.sk_test }), 400, 'invalid_request_error', 'parameter_invalid', param);
    }
    expectError(await tp.api.patch(hc, { enabled: false }, { key: tp.team.sk_test }), 403, 'authorization_error', 'team_access_denied');
    expect(expectOk(await tp.api.get(hc, { key: t.sk_test }), 200)).toEqual(on);
    expect(expectOk(await tp.api.patch(hc, { title: null }, { key: t.sk_test }), 200)).toMatchObject({ enabled: true, title: null });
  });
});

describe('the public help center at /help/{teamSlug}', () => {
  let slug: string;
  const help = (p = '', init?: RequestInit) => fetch(`${originOf(tp)}/help/${slug}${p}`, { redirect: 'manual', ...init });
  const html = async (res: Response, status: number) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('content-security-policy')).not.toContain('script-src');
    expect(res.headers.get('x-svc-request-id')).toMatch(/^req_/);
    return res.text();
  };

  beforeAll(async () => {
    slug = await teamSlugOf(tp);
  });

  it('is 404 while off, exactly like a team that does not exist', async () => {
    const off = await html(await help(), 404);
    const unknown = await html(await fetch(`${originOf(tp)}/help/no-such-team-here`), 404);
    expect(off).toContain('Not found');
    expect(unknown).toContain('Not found');
    expect(off).not.toContain('Reset your password');
    await html(await help(`/articles/${kb.visible.id}`), 404);
  });

  describe('once turned on for the live and test partitions', () => {
    beforeAll(async () => {
      expectOk(await tp.api.patch(`${tp.teamPath}/help-center`, { enabled: true, title: 'Acme Help Center' }), 200);
    });

    it('the test partition\'s home (?mode=test) lists public categories and their published public articles only', async () => {
      const page = await html(await help('?mode=test'), 200);
      expect(page).toContain('<title>Acme Help Center</title>');
      expect(page).toContain('Account');
      expect(page).toContain('Sign-in &amp; profile');
      expect(page).toContain('Reset your password');
      expect(page).toContain('Contact us');
      for (const hidden of ['Unreleased feature', 'Private runbook', 'Filed privately', 'Staff notes']) expect(page).not.toContain(hidden);
      expect(page).toContain(`href="/help/${slug}/articles/${kb.visible.id}-reset-your-password?mode=test"`);
      expect(page).not.toMatch(/<script/i);
    });

    it('the live partition has its own switch: off, so 404', async () => {
      await html(await help(), 404);
    });

    it('an article page renders its Markdown as sanitised HTML by id, with or without the title slug, and counts a view', async () => {
      const before = expectOk(await tp.api.get(`${articles()}/${kb.visible.id}`), 200).viewCount;
      const page = await html(await help(`/articles/${kb.visible.id}-reset-your-password?mode=test`), 200);
      expect(page).toContain('<h1>Reset your password</h1>');
      expect(page).toContain('<strong>Forgot password</strong>');
      expect(page).not.toContain('secret-owner');
      await html(await help(`/articles/${kb.visible.id}?mode=test`), 200);
      // a HEAD request builds the page but is no view
      expect((await help(`/articles/${kb.visible.id}?mode=test`, { method: 'HEAD' })).status).toBe(200);
      expect(expectOk(await tp.api.get(`${articles()}/${kb.visible.id}`), 200).viewCount).toBe(before + 2);
    });

    it('scripts, event handlers and javascript: links in an article do not survive rendering', async () => {
      const evil = await createArticle(tp, {
        title: 'Evil <b>title</b>',
        content: 'Hi <script>document.title="pwned"</script>\n\n[click](javascript:alert(1)) <a href="javascript:alert(2)">raw</a> <img src=x onerror="alert(3)">\n\n<iframe src="https://example.com"></iframe>',
        status: 'published',
        isPublic: true,
      });
      const page = await html(await help(`/articles/${evil.id}?mode=test`), 200);
      expect(page).not.toMatch(/<script|javascript:|onerror|<iframe/i);
      expect(page).toContain('Evil &lt;b&gt;title&lt;/b&gt;');
      expect(page).toContain('click');
    });

    it('a draft, private, privately filed, unknown or malformed article is 404, counting nothing', async () => {
      for (const a of [kb.draft, kb.private, kb.inPrivateCat]) {
        const page = await html(await help(`/articles/${a.id}?mode=test`), 404);
        expect(page).not.toContain(a.title);
      }
      for (const p of ['/articles/art_doesnotexist000000000000', '/articles/not-an-id', '/articles/%E0%A4%A', '/other', '/articles/x/y']) {
        await html(await help(`${p}?mode=test`), 404);
      }
      expect(expectOk(await tp.api.get(`${articles()}/${kb.draft.id}`), 200).viewCount).toBe(0);
    });

    it('search (?q=) finds published public articles by title or content, and nothing else', async () => {
      const page = await html(await help('?mode=test&q=PASSWORD'), 200);
      expect(page).toContain('Reset your password');
      for (const hidden of ['Unreleased feature', 'Private runbook', 'Filed privately', 'Contact us']) expect(page).not.toContain(hidden);
      expect(await html(await help('?mode=test&q=zzzz-nothing'), 200)).toContain('No articles found.');
    });

    it('answers GET and HEAD only; an unknown mode is 404', async () => {
      const post = await help('?mode=test', { method: 'POST' });
      expect(post.status).toBe(405);
      expect(post.headers.get('allow')).toBe('GET, HEAD');
      const head = await help('?mode=test', { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
      await html(await help('?mode=staging'), 404);
    });
  });

  it('the live partition serves at /help/{teamSlug} once its own switch is on', async () => {
    await createArticle(tp, { title: 'Live article', status: 'published', isPublic: true }, tp.team.sk_live);
    expectOk(await tp.api.patch(`${tp.teamPath}/help-center`, { enabled: true }, { key: tp.team.sk_live }), 200);
    const page = await html(await help(), 200);
    expect(page).toContain('Live article');
    expect(page).toContain('<title>Help center</title>');
    expect(page).not.toContain('Reset your password');
    expect(page).not.toContain('mode=test');
  });
});
