/**
 * Agent console benchmark (not a test; issue 35's quality bar). The platform as `npm start` runs it
 * (one process, embedded defaults, its own data folder), the console signed in as the dev team's
 * owner through the real sign-in (a link requested by email, read from the mail folder, its token
 * posted), in Debian's Chromium on loopback. In the same run, as the baselines:
 *  - a static hello page (one HTML file and one small script that says "ready") served by node:http;
 *  - the raw event stream read by a plain SSE client in this process.
 *
 *  1. first load: `--loads` (5) cold loads (a new browser context each: nothing cached) of `/app/` with
 *     `--tickets` (200) tickets in the inbox: the bytes on the wire (compressed, as sent) of the app's
 *     own files and of its API answers, and the time from navigation to the first inbox row on screen
 *     (the app's script ran, the session and the first page of tickets came, React drew them and
 *     listens for keys: interactive), against the hello page's time to "ready". Medians.
 *  2. event to inbox row: the inbox open; `--events` (100) customer tickets created through the API one
 *     after another, `--gap` ms (150) apart; for each, the time from the API's answer (the ticket and
 *     its event are committed by then) to its row appearing in the page (a MutationObserver's clock),
 *     and, the floor, to its `ticket.created` frame on the plain SSE client. p50/p99.
 *  3. paging: the team grown to `--many` (10,000) tickets (imported, 500 a request); `--flips` (30) page
 *     turns with `]` from page 1, then from page 150, each after `--read` ms (800) on the page (a person
 *     reads; the console fetches the next page meanwhile), and once more with no pause at all: the time
 *     from the key to the new page's rows on screen, p50/p99, beside one plain `GET /tickets?page=…`.
 *
 *   npx tsx bench/console.bench.ts [--loads 5] [--tickets 200] [--events 100] [--gap 150] [--many 10000] [--flips 30] [--read 800]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { request } from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { pct, startLocalPlatform, type LocalPlatform } from './processes';

const { values } = parseArgs({
  options: {
    loads: { type: 'string', default: '5' },
    tickets: { type: 'string', default: '200' },
    events: { type: 'string', default: '100' },
    gap: { type: 'string', default: '150' },
    many: { type: 'string', default: '10000' },
    flips: { type: 'string', default: '30' },
    read: { type: 'string', default: '800' },
  },
});
const READ_MS = Number(values.read);
const MANY = Number(values.many);
const FLIPS = Number(values.flips);
const LOADS = Number(values.loads);
const TICKETS = Number(values.tickets);
const EVENTS = Number(values.events);
const GAP_MS = Number(values.gap);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => pct([...xs].sort((a, b) => a - b), 50);
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (x: number) => `${x.toFixed(0)} ms`;

// ---------- the static baseline ----------

const HELLO_HTML = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>hello</title><script src="/hello.js" defer></script></head><body><h1>hello</h1></body></html>';
const HELLO_JS = "document.body.insertAdjacentHTML('beforeend', '<p id=\"ready\">ready</p>');";

function startHello(): Promise<{ url: string; close: () => void }> {
  const server = createServer((req, res) => {
    const js = req.url === '/hello.js';
    res.writeHead(200, { 'content-type': js ? 'text/javascript' : 'text/html', 'cache-control': 'no-cache' });
    res.end(js ? HELLO_JS : HELLO_HTML);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as { port: number }).port}/`, close: () => server.close() })));
}

// ---------- a page load, measured ----------

interface Load {
  /** navigation start → the marker on screen */
  ms: number;
  /** bytes on the wire of the page's own files (document, scripts, styles, icons) */
  appBytes: number;
  /** bytes on the wire of API answers */
  apiBytes: number;
  files: number;
}

/** Records, in the page, when the first element matching `selector` appears (performance.now()). */
const markerScript = (selector: string) => `
  new MutationObserver((_, obs) => {
    if (document.querySelector(${JSON.stringify(selector)})) { window.__marker = performance.now(); obs.disconnect(); }
  }).observe(document, { childList: true, subtree: true });`;

async function measureLoad(context: BrowserContext, url: string, selector: string): Promise<Load> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const urls = new Map<string, string>();
  let appBytes = 0;
  let apiBytes = 0;
  let files = 0;
  cdp.on('Network.requestWillBeSent', (e: any) => urls.set(e.requestId, e.request.url));
  cdp.on('Network.loadingFinished', (e: any) => {
    const u = urls.get(e.requestId) ?? '';
    if (u.includes('/api/')) apiBytes += e.encodedDataLength;
    else {
      appBytes += e.encodedDataLength;
      files++;
    }
  });
  await page.addInitScript(markerScript(selector));
  await page.goto(url);
  // A function, not a string: the console's CSP refuses eval, which a string predicate needs.
  await page.waitForFunction(() => (globalThis as any).__marker !== undefined, undefined, { timeout: 30_000 });
  // What had arrived when the rows were on screen (later fetches, the ticket page warmed up, are not the first load).
  const load = { appBytes, apiBytes, files };
  const at = (await page.evaluate('window.__marker')) as number;
  await page.close();
  return { ms: at, ...load };
}

// ---------- signing in as the owner ----------

/** The token of the newest sign-in mail in the data folder (quoted-printable undone). */
function tokenFromMail(dataDir: string): string | null {
  const dir = path.join(dataDir, 'mail');
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.eml')).sort();
  } catch {
    return null;
  }
  for (const f of files.reverse()) {
    const text = readFileSync(path.join(dir, f), 'utf8').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const m = /\/app\/sign-in\?token=([A-Za-z0-9_-]+)/.exec(text);
    if (m) return m[1]!;
  }
  return null;
}

async function sessionCookie(p: LocalPlatform, origin: string): Promise<string> {
  const owner = await p.call('GET', `${p.base}/members/${(p.creds as any).ownerMemberId}`, undefined, p.creds.keys.sk_live);
  await p.call('POST', `${p.url}/auth/sign-in-links`, { email: owner.data.email }, null);
  let token: string | null = null;
  for (const deadline = Date.now() + 30_000; !token && Date.now() < deadline; await sleep(100)) token = tokenFromMail(p.dataDir);
  if (!token) throw new Error('no sign-in mail arrived in 30 s');
  const res = await fetch(`${p.url}/auth/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify({ token }) });
  if (res.status !== 201) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`);
  const cookie = /helpdesk_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '');
  if (!cookie) throw new Error('sign-in set no cookie');
  return cookie[1]!;
}

// ---------- the raw stream, the floor of the event latency ----------

function rawStream(url: string, key: string, onTicket: (ticketId: string, at: number) => void): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}?types=ticket.created`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${key}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
      res.setEncoding('utf8');
      let rest = '';
      res.on('data', (chunk: string) => {
        const now = Date.now();
        const frames = (rest + chunk).split('\n\n');
        rest = frames.pop()!;
        for (const frame of frames) {
          if (frame.startsWith('retry:')) resolve(() => req.destroy());
          const at = frame.indexOf('\ndata: ');
          if (at !== -1) onTicket(JSON.parse(frame.slice(at + 7)).data.ticket.id, now);
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
}

// ---------- the run ----------

async function main() {
  const hello = await startHello();
  const p = await startLocalPlatform('console', 'live');
  const origin = new URL(p.url).origin;
  let browser: Browser | null = null;
  try {
    const newTicket = (i: number) =>
      p.call('POST', `${p.base}/tickets`, { title: `Bench ticket ${i}`, customerName: `Customer ${i % 50}`, messages: [{ sender: 'customer', content: 'Hello' }] });
    for (let i = 0; i < TICKETS; i += 20) await Promise.all(Array.from({ length: Math.min(20, TICKETS - i) }, (_, j) => newTicket(i + j)));
    const cookie = await sessionCookie(p, origin);
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    const signedIn = async () => {
      const ctx = await browser!.newContext({ viewport: { width: 1366, height: 860 } });
      await ctx.addCookies([{ name: 'helpdesk_session', value: cookie, url: origin, httpOnly: true, sameSite: 'Strict' }]);
      return ctx;
    };

    // 1. first load
    const helloLoads: Load[] = [];
    const appLoads: Load[] = [];
    for (let i = 0; i < LOADS + 1; i++) {
      const h = await browser.newContext();
      const hl = await measureLoad(h, hello.url, '#ready');
      await h.close();
      const a = await signedIn();
      const al = await measureLoad(a, `${origin}/app/`, 'li[data-ticket-id]');
      await a.close();
      if (i > 0) {
        // The first round warms the platform and the browser's process; it is not counted.
        helloLoads.push(hl);
        appLoads.push(al);
      }
    }
    const helloMs = median(helloLoads.map((l) => l.ms));
    const appMs = median(appLoads.map((l) => l.ms));
    console.log(`first load (${LOADS} cold loads each, medians; ${TICKETS} tickets in the team)`);
    console.log(`  hello page      ${ms(helloMs).padStart(7)}  ${kb(median(helloLoads.map((l) => l.appBytes))).padStart(9)} in ${helloLoads[0]!.files} files`);
    console.log(
      `  console /app/   ${ms(appMs).padStart(7)}  ${kb(median(appLoads.map((l) => l.appBytes))).padStart(9)} in ${appLoads[0]!.files} files (compressed, as sent), ` +
        `+ ${kb(median(appLoads.map((l) => l.apiBytes)))} of API answers; ${(appMs / helloMs).toFixed(1)}× the hello page's time to interactive`,
    );

    // 2. event → inbox row
    const ctx = await signedIn();
    const page = await ctx.newPage();
    await page.addInitScript(`
      window.__rows = {};
      new MutationObserver((records) => {
        for (const r of records) for (const n of r.addedNodes) {
          if (n.nodeType === 1) for (const li of [n, ...n.querySelectorAll('li[data-ticket-id]')]) {
            const id = li.getAttribute && li.getAttribute('data-ticket-id');
            if (id && !(id in window.__rows)) window.__rows[id] = Date.now();
          }
        }
      }).observe(document, { childList: true, subtree: true });`);
    await page.goto(`${origin}/app/?folder=all`);
    await page.waitForSelector('.stream-live', { timeout: 30_000 });
    const streamAt = new Map<string, number>();
    const closeStream = await rawStream(`${p.base}/events/stream`, p.creds.keys.sk_live, (id, at) => streamAt.set(id, at));
    const answeredAt = new Map<string, number>();
    for (let i = 0; i < EVENTS; i++) {
      const created = await newTicket(TICKETS + i);
      answeredAt.set(created.data.id, Date.now());
      await sleep(GAP_MS);
    }
    const deadline = Date.now() + 30_000;
    let rows: Record<string, number> = {};
    while (Date.now() < deadline) {
      rows = (await page.evaluate('window.__rows')) as Record<string, number>;
      if ([...answeredAt.keys()].every((id) => id in rows && streamAt.has(id))) break;
      await sleep(100);
    }
    closeStream();
    const toRow: number[] = [];
    const toFrame: number[] = [];
    let missing = 0;
    for (const [id, at] of answeredAt) {
      if (!(id in rows)) missing++;
      else toRow.push(rows[id]! - at);
      if (streamAt.has(id)) toFrame.push(streamAt.get(id)! - at);
    }
    toRow.sort((a, b) => a - b);
    toFrame.sort((a, b) => a - b);
    console.log(`event → inbox row (${EVENTS} tickets, ${GAP_MS} ms apart; from the API's answer)`);
    console.log(`  raw SSE client  p50 ${ms(pct(toFrame, 50)).padStart(6)}  p99 ${ms(pct(toFrame, 99)).padStart(6)}`);
    console.log(`  console row     p50 ${ms(pct(toRow, 50)).padStart(6)}  p99 ${ms(pct(toRow, 99)).padStart(6)}${missing ? `  (${missing} never appeared)` : ''}`);

    // 3. paging through many tickets
    const have = (await p.call('GET', `${p.base}/tickets?pageSize=1`)).meta.pagination.total as number;
    for (let n = have; n < MANY; n += 500) {
      const records = Array.from({ length: Math.min(500, MANY - n) }, (_, j) => ({ title: `Imported ${n + j}`, customer_email: `c${(n + j) % 500}@example.com`, customer_name: `Customer ${(n + j) % 500}` }));
      await p.call('POST', `${p.base}/import`, { resource: 'tickets', records });
    }
    const flipTimes = async (startPage: number, readMs: number) => {
      await page.goto(`${origin}/app/?folder=all&page=${startPage}`);
      await page.waitForSelector('li[data-ticket-id]');
      const times: number[] = [];
      for (let i = 0; i < FLIPS; i++) {
        await sleep(readMs);
        const want = `Page ${startPage + i + 1} of`;
        const t0 = Date.now();
        await page.keyboard.press(']');
        await page.waitForFunction(
          (label) => {
            const doc = (globalThis as any).document;
            const cur = doc.querySelector('.pager [aria-current]');
            const list = doc.querySelector('ol.rows');
            return !!cur && cur.textContent.startsWith(label) && !!list && !list.classList.contains('stale') && !!list.querySelector('li[data-ticket-id]');
          },
          want,
          { polling: 'raf', timeout: 30_000 },
        );
        times.push(Date.now() - t0);
      }
      return times.sort((a, b) => a - b);
    };
    const apiPage = async (n: number) => {
      const t0 = Date.now();
      await p.call('GET', `${p.base}/tickets?page=${n}&pageSize=50&expand[]=customer`);
      return Date.now() - t0;
    };
    const total = (await p.call('GET', `${p.base}/tickets?pageSize=1`)).meta.pagination.total as number;
    const deepStart = Math.max(1, Math.min(150, Math.ceil(total / 50) - FLIPS - 1));
    const early = await flipTimes(1, READ_MS);
    const deep = await flipTimes(deepStart, READ_MS);
    const hurried = await flipTimes(deepStart, 0);
    const apiTimes = [] as number[];
    for (const n of [2, deepStart + 1, deepStart + FLIPS]) apiTimes.push(await apiPage(n));
    console.log(`paging (${total.toLocaleString('en-US')} tickets, 50 a page; ${FLIPS} turns with ] each, key to rows)`);
    console.log(`  from page 1, ${READ_MS} ms on each    p50 ${ms(pct(early, 50)).padStart(6)}  p99 ${ms(pct(early, 99)).padStart(6)}`);
    console.log(`  from page ${deepStart}, ${READ_MS} ms on each  p50 ${ms(pct(deep, 50)).padStart(6)}  p99 ${ms(pct(deep, 99)).padStart(6)}`);
    console.log(`  from page ${deepStart}, no pause          p50 ${ms(pct(hurried, 50)).padStart(6)}  p99 ${ms(pct(hurried, 99)).padStart(6)}`);
    console.log(`  one GET /tickets page (the API alone) median ${ms(median(apiTimes))}`);
    await ctx.close();
  } finally {
    await browser?.close();
    await p.close();
    hello.close();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
