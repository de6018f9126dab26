import type { IncomingMessage, ServerResponse } from 'node:http';
import { PAGE_STYLE_ELEMENT } from './page-style';

/** A page of the gateway's own: doctype, language, viewport, the shared stylesheet (`title` and `body` are trusted HTML). */
export const htmlPage = (title: string, body: string) =>
  `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
  `<meta name="referrer" content="no-referrer">\n<title>${title}</title>\n${PAGE_STYLE_ELEMENT}\n</head>\n<body>\n<main>\n${body}\n</main>\n</body>\n</html>\n`;

/** A minimal page with a title and one paragraph (`text` is trusted: callers pass constants). */
export const messagePage = (title: string, text: string) => htmlPage(title, `<h1>${title}</h1>\n<p>${text}</p>`);

/**
 * Answers an HTML page the gateway serves without a key (help center, billing portal): the caller's
 * Content-Security-Policy and caching, never sniffed, no referrer; a HEAD gets the headers only.
 */
export function sendHtml(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  html: string,
  headers: { csp: string; cacheControl: string; extra?: Record<string, string> },
): void {
  res.statusCode = status;
  res.setHeader('content-type', 'text/html; charset=utf-8');
  res.setHeader('content-security-policy', headers.csp);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('cache-control', headers.cacheControl);
  for (const [k, v] of Object.entries(headers.extra ?? {})) res.setHeader(k, v);
  const body = Buffer.from(html);
  res.setHeader('content-length', body.length);
  res.end(req.method === 'HEAD' ? undefined : body);
}
