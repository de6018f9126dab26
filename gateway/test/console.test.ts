/**
 * The agent console's files at /app (gateway/src/console.ts), served from a build fixture: hashed
 * assets cached for a year and sent precompressed, index.html for every app route and never cached,
 * the strict CSP on everything, 404 for a missing file, 405 for a write, 503 when nothing is built.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gzipSync } from 'node:zlib';
import { request } from 'node:http';
import { CONSOLE_CSP, startGateway, type RunningGateway } from '../src';
import { logger, tokens } from './helpers';

const INDEX = '<!doctype html><html lang="en"><head><title>Helpdesk console</title><script type="module" src="/app/assets/index-AbC123.js"></script></head><body><div id="root"></div></body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2000))});`;

let dist: string;
let gw: RunningGateway;
let origin: string;

beforeAll(async () => {
  dist = mkdtempSync(path.join(os.tmpdir(), 'console-dist-'));
  mkdirSync(path.join(dist, 'assets'));
  writeFileSync(path.join(dist, 'index.html'), INDEX);
  writeFileSync(path.join(dist, 'index.html.br'), brotliCompressSync(INDEX));
  writeFileSync(path.join(dist, 'build.json'), '{"inputs":"secret-ish"}');
  writeFileSync(path.join(dist, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(path.join(dist, 'assets/index-AbC123.js'), SCRIPT);
  writeFileSync(path.join(dist, 'assets/index-AbC123.js.br'), brotliCompressSync(SCRIPT));
  writeFileSync(path.join(dist, 'assets/index-AbC123.js.gz'), gzipSync(SCRIPT));
  gw = await startGateway({ port: 0, mongoUrl: 'memory:', tokens, logger, services: {}, consoleDistDir: dist });
  origin = new URL(gw.url).origin;
});
afterAll(async () => {
  await gw.stop();
  rmSync(dist, { recursive: true, force: true });
});

/** A raw GET (fetch would decode the body and hide Content-Encoding's effect on the length). */
function get(pathname: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: Record<string, any>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${pathname}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('/app', () => {
  it.each(['/app', '/app/', '/app/tickets/tkt_abc', '/app/sign-in?token=abc', '/app/admin/webhooks/whk_1'])('%s answers index.html, not cached, with the CSP', async (p) => {
    const res = await get(p);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body.toString()).toBe(INDEX);
  });

  it('the CSP allows no inline script, no other origin and no framing', () => {
    const directives = Object.fromEntries(CONSOLE_CSP.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
    expect(directives['default-src']).toEqual(["'none'"]);
    expect(directives['script-src']).toEqual(["'self'"]);
    expect(directives['style-src']).toEqual(["'self'"]);
    expect(directives['connect-src']).toEqual(["'self'"]);
    expect(directives['frame-ancestors']).toEqual(["'none'"]);
    expect(CONSOLE_CSP).not.toContain('unsafe');
  });

  it('revalidates index.html by its ETag', async () => {
    const first = await get('/app/');
    const again = await get('/app/inbox', { 'if-none-match': first.headers.etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('sends a hashed asset for a year, brotli or gzip as accepted, identity otherwise', async () => {
    const br = await get('/app/assets/index-AbC123.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toBe('Accept-Encoding');
    expect(brotliDecompressSync(br.body).toString()).toBe(SCRIPT);
    expect(br.body.length).toBeLessThan(SCRIPT.length / 4);
    const gz = await get('/app/assets/index-AbC123.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    const plain = await get('/app/assets/index-AbC123.js');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(SCRIPT);
    const head = await get('/app/assets/index-AbC123.js', {}, 'HEAD');
    expect([head.status, head.body.length, Number(head.headers['content-length'])]).toEqual([200, 0, SCRIPT.length]);
  });

  it('serves a file of the build root for an hour', async () => {
    const res = await get('/app/favicon.svg');
    expect([res.status, res.headers['content-type'], res.headers['cache-control']]).toEqual([200, 'image/svg+xml', 'public, max-age=3600']);
  });

  it.each([
    '/app/assets/missing-123.js',
    '/app/assets/index-AbC123.js.br',
    '/app/assets/..%2Fbuild.json',
    '/app/assets/../build.json',
    '/app/build.json',
    '/app/index.html',
    '/app/assets/sub/x.js',
    '/app/tickets/x.js',
  ])('%s is 404 (never index.html, never a file outside the build)', async (p) => {
    const res = await get(p);
    expect(res.status).toBe(404);
    expect(res.body.toString()).not.toContain('secret-ish');
    expect(res.body.toString()).not.toContain('module');
  });

  it('answers a write 405 with Allow', async () => {
    const res = await get('/app/tickets', {}, 'POST');
    expect([res.status, res.headers.allow]).toEqual([405, 'GET, HEAD']);
  });

  it('leaves paths that only start with /app alone', async () => {
    const res = await get('/apple');
    expect(res.status).toBe(404);
    expect(res.body.toString()).toContain('route_not_found');
  });

  it('says the console is not built (503) when there is no build', async () => {
    const empty = mkdtempSync(path.join(os.tmpdir(), 'console-empty-'));
    const bare = await startGateway({ port: 0, mongoUrl: 'memory:', tokens, logger, services: {}, consoleDistDir: empty });
    try {
      const res = await fetch(`${new URL(bare.url).origin}/app/`);
      expect(res.status).toBe(503);
      expect(await res.text()).toContain('npm install');
    } finally {
      await bare.stop();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
