import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { messagePage, sendHtml } from './html-page';
import { isUnder, PUBLIC_ROOTS } from './public-roots';

/**
 * The agent console (docs/adr/0069-agent-console.md): the browser app of gateway/console, built by
 * Vite into gateway/console/dist, served at `/app`. It holds no rule of its own: every action is a
 * public API operation (`/api/v1`, same origin, the member's session cookie).
 *
 * - `/app/assets/<hashed name>`: the bundle, cached for a year (`immutable`: a new build has new names),
 *   sent precompressed (brotli, else gzip) to browsers that accept it;
 * - any other path under `/app` (the app's own routes: `/app/tickets/tkt_…`, `/app/sign-in?token=…`)
 *   gets index.html, never cached (revalidated by its ETag), so a deploy reaches every browser at once;
 *   a missing file (a name with an extension) is 404;
 * - a strict Content-Security-Policy: scripts, styles and connections of this origin only, no inline
 *   script, no frames; no referrer (a sign-in link's token is in the URL of its page).
 */

export const CONSOLE_ROOT = PUBLIC_ROOTS.app;
/** Where the build lives (the sources beside it: gateway/console). */
export const CONSOLE_DIR = path.join(__dirname, '../console');
const DEFAULT_DIST = path.join(CONSOLE_DIR, 'dist');

export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; font-src 'self'; connect-src 'self'; " +
  "manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};
/** A file name of the build: no path, no hidden file, nothing to decode. */
const FILE_NAME_RE = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,199}$/;
/** Files of the build's root that are not for browsers. */
const PRIVATE = new Set(['build.json']);

const NOT_BUILT_HTML = messagePage(
  'Console not built',
  'The agent console has not been built on this server. Run <code>npm install</code> (or <code>npm run build -w @helpdesk/console</code>) and start again.',
);
const NOT_FOUND_HTML = messagePage('Not found', 'There is no such file.');
const METHOD_HTML = messagePage('Method not allowed', 'The console answers GET and HEAD only.');

interface FileEntry {
  body: Buffer;
  br: Buffer | null;
  gz: Buffer | null;
  etag: string;
  mtimeMs: number;
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

export interface ConsoleOptions {
  /** The built app (default gateway/console/dist). */
  distDir?: string;
}

const readOptional = (file: string): Buffer | null => {
  try {
    return readFileSync(file);
  } catch {
    return null;
  }
};

/** Serves `/app` ahead of `next`, which gets every other request. */
export function withConsole(next: Listener, opts: ConsoleOptions = {}): Listener {
  const dist = opts.distDir ?? DEFAULT_DIST;
  // Files read once (a rebuild gives assets new names); index.html again when its mtime moves.
  const cache = new Map<string, FileEntry>();

  function load(file: string, revalidate: boolean): FileEntry | null {
    const known = cache.get(file);
    if (known && !revalidate) return known;
    let mtimeMs: number;
    try {
      const st = statSync(file);
      if (!st.isFile()) return null;
      mtimeMs = st.mtimeMs;
    } catch {
      return null;
    }
    if (known && known.mtimeMs === mtimeMs) return known;
    const body = readOptional(file);
    if (!body) return null;
    const entry: FileEntry = {
      body,
      br: readOptional(`${file}.br`),
      gz: readOptional(`${file}.gz`),
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      mtimeMs,
    };
    if (cache.size > 500) cache.clear();
    cache.set(file, entry);
    return entry;
  }

  function send(req: IncomingMessage, res: ServerResponse, entry: FileEntry, type: string, cacheControl: string): void {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
    res.setHeader('content-type', type);
    res.setHeader('cache-control', cacheControl);
    res.setHeader('etag', entry.etag);
    res.setHeader('vary', 'Accept-Encoding');
    if (req.headers['if-none-match'] === entry.etag) {
      res.statusCode = 304;
      res.end();
      return;
    }
    const accepted = String(req.headers['accept-encoding'] ?? '');
    let body = entry.body;
    if (entry.br && /\bbr\b/.test(accepted)) {
      body = entry.br;
      res.setHeader('content-encoding', 'br');
    } else if (entry.gz && /\bgzip\b/.test(accepted)) {
      body = entry.gz;
      res.setHeader('content-encoding', 'gzip');
    }
    res.statusCode = 200;
    res.setHeader('content-length', body.length);
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  const page = (req: IncomingMessage, res: ServerResponse, status: number, html: string, extra: Record<string, string> = {}) =>
    sendHtml(req, res, status, html, { csp: "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'", cacheControl: 'no-store', extra });

  function serve(req: IncomingMessage, res: ServerResponse, pathname: string): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      page(req, res, 405, METHOD_HTML, { allow: 'GET, HEAD' });
      return;
    }
    const rest = pathname.slice(CONSOLE_ROOT.length + 1); // '' for /app and /app/
    const segments = rest.split('/');
    const last = segments[segments.length - 1];
    const asset = segments.length === 2 && segments[0] === 'assets';
    if (asset || (segments.length === 1 && last.includes('.'))) {
      const entry = FILE_NAME_RE.test(last) && !PRIVATE.has(last) && !last.endsWith('.br') && !last.endsWith('.gz') && last !== 'index.html' ? load(path.join(dist, ...segments), false) : null;
      if (!entry) {
        page(req, res, 404, NOT_FOUND_HTML);
        return;
      }
      const type = TYPES[path.extname(last)] ?? 'application/octet-stream';
      send(req, res, entry, type, asset ? 'public, max-age=31536000, immutable' : 'public, max-age=3600');
      return;
    }
    if (last.includes('.')) {
      page(req, res, 404, NOT_FOUND_HTML);
      return;
    }
    const index = load(path.join(dist, 'index.html'), true);
    if (!index) {
      page(req, res, 503, NOT_BUILT_HTML, { 'retry-after': '30' });
      return;
    }
    send(req, res, index, 'text/html; charset=utf-8', 'no-cache');
  }

  return (req, res) => {
    const url = req.url ?? '/';
    if (!isUnder(url, CONSOLE_ROOT)) {
      next(req, res);
      return;
    }
    const q = url.indexOf('?');
    serve(req, res, q === -1 ? url : url.slice(0, q));
  };
}

/**
 * Builds the console when its sources changed since the last build (gateway/console/scripts/build.mjs;
 * a no-op when fresh). The launchers call it before they start (`npm start`, `npm run start:processes`),
 * so a checkout that changed after `npm install` still serves what its sources say. Answers whether a
 * build is there afterwards; never throws (the API works without the console).
 */
export function ensureConsoleBuilt(log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): boolean {
  const script = path.join(CONSOLE_DIR, 'scripts/build.mjs');
  const run = spawnSync(process.execPath, [script], { cwd: CONSOLE_DIR, encoding: 'utf8', timeout: 180_000 });
  const output = `${run.stdout ?? ''}${run.stderr ?? ''}`.trim();
  if (run.status !== 0) log(`the console could not be built: ${output || run.error?.message || `exit ${run.status}`}`);
  else if (output) log(output);
  try {
    return statSync(path.join(DEFAULT_DIST, 'index.html')).isFile();
  } catch {
    return false;
  }
}
