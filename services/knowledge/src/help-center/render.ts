import { Marked } from 'marked';
import sanitizeHtml from 'sanitize-html';
import slugify from 'slugify';
import type { ArticleView, CategoryView, Partition } from '@helpdesk/contracts';
import { iconSvg } from '../categories/icons';

/**
 * The help center's HTML: article Markdown rendered by marked and sanitised by sanitize-html (no
 * script, event handler, `javascript:` or `data:` link survives), and pages built around it with every
 * other text escaped. The gateway also serves them with a Content-Security-Policy allowing no script.
 */
const markdown = new Marked({ gfm: true, breaks: false });

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'h1', 'h2', 'del', 'ins', 'sup', 'sub'],
  allowedAttributes: {
    a: ['href', 'title', 'rel'],
    img: ['src', 'alt', 'title', 'width', 'height'],
    code: ['class'],
    th: ['align'],
    td: ['align'],
    ol: ['start'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['https'] },
  allowProtocolRelative: false,
  transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow noopener noreferrer' }) },
};

/** Article Markdown as safe HTML. */
export function renderMarkdown(content: string): string {
  return sanitizeHtml(markdown.parse(content, { async: false }), SANITIZE);
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** Where the pages link to: the team's public path, and `?mode=test` for the test partition. */
export interface Site {
  base: string;
  mode: Partition;
  title: string;
}

const partitionQuery = (site: Site, sep: '?' | '&') => (site.mode === 'test' ? `${sep}mode=test` : '');

/** `/help/acme/articles/art_…-how-to-reset-a-password`: the id decides, the title slug is for people. */
export function articleHref(site: Site, a: Pick<ArticleView, 'id' | 'title'>): string {
  const slug = slugify(a.title, { lower: true, strict: true }).slice(0, 80).replace(/-+$/, '');
  return `${site.base}/articles/${a.id}${slug ? `-${slug}` : ''}${partitionQuery(site, '?')}`;
}

function page(site: Site, title: string, body: string): string {
  const home = `${site.base}${partitionQuery(site, '?')}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:48rem;margin:0 auto;padding:1rem 1.5rem;line-height:1.5;color:#1f2937}
header{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;justify-content:space-between;border-bottom:1px solid #e5e7eb;padding-bottom:.75rem}
header a{color:inherit;text-decoration:none;font-weight:600;font-size:1.25rem}
input[type=search]{padding:.4rem .6rem;min-width:16rem}
.category{margin:1.5rem 0}.category h2{margin-bottom:.25rem}.category p{margin:.25rem 0;color:#4b5563}
.icon{display:inline-block;width:1.1rem;height:1.1rem;vertical-align:-.15rem;margin-right:.5rem}.icon svg{width:100%;height:100%}
article img{max-width:100%}pre{background:#f3f4f6;padding:.75rem;overflow:auto}
</style>
</head>
<body>
<header>
<a href="${escapeHtml(home)}">${escapeHtml(site.title)}</a>
<form method="get" action="${escapeHtml(site.base)}" role="search">
${site.mode === 'test' ? '<input type="hidden" name="mode" value="test">' : ''}<input type="search" name="q" aria-label="Search articles" placeholder="Search articles">
<button type="submit">Search</button>
</form>
</header>
<main>
${body}
</main>
</body>
</html>
`;
}

const articleLinks = (site: Site, articles: ArticleView[]) =>
  `<ul>${articles.map((a) => `<li><a href="${escapeHtml(articleHref(site, a))}">${escapeHtml(a.title)}</a></li>`).join('')}</ul>`;

/** The home page: public categories in display order with their articles, then articles in no category. */
export function homePage(site: Site, categories: CategoryView[], articles: ArticleView[]): string {
  const sections = categories.map((c) => {
    const inIt = articles.filter((a) => a.categoryId === c.id);
    return (
      `<section class="category" id="${escapeHtml(c.slug)}"><h2><span class="icon" style="color:${escapeHtml(c.color)}">${iconSvg(c.icon)}</span>${escapeHtml(c.name)}</h2>` +
      (c.description ? `<p>${escapeHtml(c.description)}</p>` : '') +
      (inIt.length ? articleLinks(site, inIt) : '<p>No articles yet.</p>') +
      '</section>'
    );
  });
  const loose = articles.filter((a) => a.categoryId === null);
  if (loose.length) sections.push(`<section class="category" id="other-articles"><h2>Other articles</h2>${articleLinks(site, loose)}</section>`);
  const body = sections.length ? sections.join('\n') : '<p>No articles yet.</p>';
  return page(site, site.title, `<h1>${escapeHtml(site.title)}</h1>\n${body}`);
}

export function searchPage(site: Site, search: string, articles: ArticleView[]): string {
  const found = articles.length
    ? `<p>${articles.length} article${articles.length === 1 ? '' : 's'} found.</p>${articleLinks(site, articles)}`
    : '<p>No articles found.</p>';
  return page(site, `Search: ${search} · ${site.title}`, `<h1>Search results for “${escapeHtml(search)}”</h1>\n<div id="results">${found}</div>`);
}

/** The content without its first line when that line is a `#` heading repeating the title (the page shows the title already). */
function withoutRepeatedTitle(title: string, content: string): string {
  const m = /^\s*#[ \t]+(.+?)[ \t#]*(?:\r?\n|$)/.exec(content);
  return m && m[1]!.trim().toLowerCase() === title.trim().toLowerCase() ? content.slice(m[0].length) : content;
}

export function articlePage(site: Site, a: ArticleView, category: CategoryView | null): string {
  const crumb = category ? `<p><a href="${escapeHtml(`${site.base}${partitionQuery(site, '?')}#${category.slug}`)}">${escapeHtml(category.name)}</a></p>` : '';
  return page(site, `${a.title} · ${site.title}`, `${crumb}<article><h1>${escapeHtml(a.title)}</h1>\n${renderMarkdown(withoutRepeatedTitle(a.title, a.content))}</article>`);
}

export function notFoundPage(site: Site): string {
  return page(site, 'Not found', '<h1>Not found</h1><p>There is no such page.</p>');
}
