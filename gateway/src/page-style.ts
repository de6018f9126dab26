/**
 * The one small stylesheet of every HTML page the gateway serves without a key (issue 34 item 10):
 * the help center (`/help/…`, whose pages the knowledge service renders), the billing portal, the
 * error reference and the message pages. Inlined in each page (their CSP allows inline styles and no
 * other source). Readable and accessible: system fonts, body text and links at a contrast above
 * WCAG AA (4.5:1) in light and dark schemes, visible focus, tables with borders, wide enough targets.
 */
export const PAGE_STYLESHEET = [
  ':root{color-scheme:light dark;--fg:#1f2328;--muted:#4b5563;--bg:#fff;--line:#c4c9d0;--soft:#f3f4f6;--link:#0a58ca;--accent:#0a58ca;--accent-fg:#fff}',
  '@media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--muted:#b8bec6;--bg:#15171a;--line:#4a5059;--soft:#23262b;--link:#8ab4f8;--accent:#8ab4f8;--accent-fg:#15171a}}',
  'body{font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);max-width:48rem;margin:0 auto;padding:1rem 1.25rem 3rem}',
  'h1{font-size:1.75rem;line-height:1.25}h2{font-size:1.3rem;margin-top:1.75rem;scroll-margin-top:1rem}',
  'a{color:var(--link)}a:hover{text-decoration-thickness:2px}',
  'a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid var(--accent);outline-offset:2px}',
  'header{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;justify-content:space-between;border-bottom:1px solid var(--line);padding-bottom:.75rem}',
  'header>a{color:inherit;text-decoration:none;font-weight:600;font-size:1.25rem}',
  'input,select,button{font:inherit;min-height:2.25rem}',
  'input[type=search]{padding:.35rem .6rem;min-width:min(16rem,100%);border:1px solid var(--line);border-radius:4px;background:var(--bg);color:var(--fg)}',
  'button{padding:.35rem .9rem;border:1px solid var(--accent);border-radius:4px;background:var(--accent);color:var(--accent-fg);cursor:pointer}',
  'button.secondary{background:transparent;color:var(--link)}',
  'table{border-collapse:collapse;width:100%;margin:1rem 0;display:block;overflow-x:auto}',
  'th,td{border:1px solid var(--line);padding:.4rem .65rem;text-align:left;vertical-align:top}th{background:var(--soft)}',
  'code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;background:var(--soft);padding:0 .2em;border-radius:3px}',
  'pre{background:var(--soft);padding:.75rem;overflow:auto;border-radius:4px}pre code{padding:0}',
  'img{max-width:100%;height:auto}blockquote{margin:1rem 0;padding-left:1rem;border-left:4px solid var(--line);color:var(--muted)}',
  '.muted,.category p{color:var(--muted)}.category{margin:1.5rem 0}.category h2{margin-bottom:.25rem}',
  '.swatch,.icon{display:inline-block;width:1.1rem;height:1.1rem;vertical-align:-.15rem;margin-right:.5rem}.swatch{border-radius:50%;width:.75rem;height:.75rem;vertical-align:.05rem}.icon svg{width:100%;height:100%}',
  'section:target{outline:3px solid var(--accent);outline-offset:4px}',
  '.plans{list-style:none;padding:0}.plans li{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center;justify-content:space-between;border:1px solid var(--line);border-radius:6px;padding:.75rem 1rem;margin:.5rem 0}',
  '.plans form{margin:0}',
].join('\n');

/** `<style>…</style>` of the shared stylesheet. */
export const PAGE_STYLE_ELEMENT = `<style>\n${PAGE_STYLESHEET}\n</style>`;

/**
 * A page rendered elsewhere (the help center's, by the knowledge service) with the shared stylesheet:
 * the first `<style>` of its head replaced by it, or the stylesheet added at the end of its head.
 */
export function withPageStyle(html: string): string {
  const head = html.indexOf('</head>');
  if (head === -1) return html;
  const start = html.indexOf('<style');
  if (start !== -1 && start < head) {
    const end = html.indexOf('</style>', start);
    if (end !== -1 && end < head) return html.slice(0, start) + PAGE_STYLE_ELEMENT + html.slice(end + '</style>'.length);
  }
  return html.slice(0, head) + PAGE_STYLE_ELEMENT + '\n' + html.slice(head);
}
