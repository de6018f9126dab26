import { articleHref, articlePage, escapeHtml, homePage, renderMarkdown, searchPage, type Site } from '../src/help-center/render';

/** The help center's HTML, without a browser (knowledge-help-center.browser.test.ts runs it in Chromium). */
const site: Site = { base: '/help/acme', mode: 'live', title: 'Acme <Help>' };
const article = (over: Record<string, unknown> = {}) => ({
  id: 'art_0123456789abcdefABCDEF01',
  title: 'Reset your password',
  content: '',
  categoryId: null,
  status: 'published' as const,
  isPublic: true,
  tags: [],
  viewCount: 0,
  useCount: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...over,
});

describe('renderMarkdown', () => {
  it('renders Markdown: headings, emphasis, lists, code, tables, https links and images', () => {
    const html = renderMarkdown('## Steps\n\n1. Open **Settings**\n2. Click *Reset*\n\n`code`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n[docs](https://example.com) ![logo](https://example.com/l.png)');
    expect(html).toContain('<h2>Steps</h2>');
    expect(html).toContain('<ol>');
    expect(html).toContain('<strong>Settings</strong>');
    expect(html).toContain('<em>Reset</em>');
    expect(html).toContain('<code>code</code>');
    expect(html).toContain('<table>');
    expect(html).toContain('<a href="https://example.com" rel="nofollow noopener noreferrer">docs</a>');
    expect(html).toContain('<img src="https://example.com/l.png" alt="logo" />');
  });

  it.each([
    ['a script element', '<script>alert(1)</script>hello', /<script/i],
    ['a markdown javascript: link', '[x](javascript:alert(1))', /javascript:/i],
    ['an html javascript: link', '<a href="JaVaScRiPt:alert(1)">x</a>', /javascript:/i],
    ['an entity-encoded javascript: link', '<a href="&#106;avascript:alert(1)">x</a>', /href=/i],
    ['an event handler', '<img src="https://x/y.png" onerror="alert(1)">', /onerror/i],
    ['an iframe', '<iframe src="https://example.com"></iframe>', /<iframe/i],
    ['a style element', '<style>body{display:none}</style>', /<style/i],
    ['a data: image', '<img src="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=">', /data:/i],
    ['an svg with script', '<svg><script>alert(1)</script></svg>', /<svg|<script/i],
    ['a form', '<form action="https://evil.example"><input name="p"></form>', /<form|<input/i],
  ])('removes %s', (_name, md, bad) => {
    expect(renderMarkdown(md)).not.toMatch(bad);
  });
});

describe('pages', () => {
  it('escape every text they place: titles, search terms, category names', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    const a = article({ title: '<img src=x onerror=alert(1)>' });
    const search = searchPage(site, '"><script>alert(1)</script>', [a]);
    expect(search).not.toMatch(/<script|<img/i);
    expect(search).toContain('<title>Search: &quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt; · Acme &lt;Help&gt;</title>');
    const home = homePage(site, [{ id: 'c1', object: 'category', name: '<b>Billing</b>', slug: 'billing', description: null, icon: 'folder', color: '#6b7280', sortOrder: 0, isPublic: true, createdAt: '', updatedAt: '' }], [a]);
    expect(home).not.toMatch(/<b>|<img/i);
    expect(home).not.toMatch(/<script/i);
  });

  it('link articles by id and title slug, keeping the test partition', () => {
    expect(articleHref(site, article())).toBe('/help/acme/articles/art_0123456789abcdefABCDEF01-reset-your-password');
    expect(articleHref({ ...site, mode: 'test' }, article({ title: '🙂' }))).toBe('/help/acme/articles/art_0123456789abcdefABCDEF01?mode=test');
    expect(articlePage({ ...site, mode: 'test' }, article({ content: '**hi**' }), null)).toContain('<input type="hidden" name="mode" value="test">');
  });
});

describe('first-hour details', () => {
  const category = { id: 'c1', object: 'category' as const, name: 'Billing', slug: 'billing', description: null, icon: 'credit-card', color: '#2563eb', sortOrder: 0, isPublic: true, createdAt: '', updatedAt: '' };
  it("draws each category's icon, decorative and in the category's colour", () => {
    const home = homePage(site, [category], [article({ categoryId: 'c1' })]);
    expect(home).toMatch(/<span class="icon" style="color:#2563eb"><svg aria-hidden="true" focusable="false" class="lucide lucide-credit-card"/);
    expect(home).not.toContain('<!--');
  });
  it('shows the title once when the content starts with the same # heading, and keeps a different one', () => {
    const same = articlePage(site, article({ content: '# Reset your password\n\nOpen settings.' }), null);
    expect(same.match(/Reset your password<\/h1>/g)).toHaveLength(1);
    expect(same).toContain('<p>Open settings.</p>');
    const other = articlePage(site, article({ content: '# Before you start\n\nOpen settings.' }), null);
    expect(other).toContain('<h1>Before you start</h1>');
  });
});
