/**
 * The agent console in headless Chromium (Debian's /usr/bin/chromium through playwright-core, as the
 * other browser suites): a platform, a browser, members signed in through the console's own sign-in
 * page, and axe-core. Suites using it are skipped, saying so, where Chromium is not installed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ensureConsoleBuilt } from '@helpdesk/gateway';
import type { TestPlatform, TeamKeys } from '../support/platform';
import { operatorSignInLink, originOf } from '../support/sessions';
import { expectOk } from '../platform/helpdesk-helpers';
import { addMember, WorkspaceEvents } from '../platform/workspace-helpers';
import type { Partition } from '@helpdesk/contracts';

export const CHROMIUM = '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** `describe`, or `describe.skip` with a warning where there is no Chromium. */
export function browserDescribe(file: string): jest.Describe {
  if (!hasChromium) console.warn(`${file}: ${CHROMIUM} not found; skipped (apt-get install chromium)`);
  return hasChromium ? describe : describe.skip;
}

/** The console's build is fresh for these sources (npm install built it; a change since is built now). */
export function consoleBuilt(): void {
  if (!ensureConsoleBuilt(() => undefined)) throw new Error('the agent console could not be built (npm run build -w @helpdesk/console)');
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

export { originOf };

/** The member a team key belongs to (the team's keys are its owner's). */
export async function memberOfKey(tp: TestPlatform, key: string): Promise<{ id: string; name: string; email: string }> {
  const who = expectOk(await tp.api.get('/auth/whoami', { key }), 200);
  const member = expectOk(await tp.api.get(`/teams/${who.teamId}/members/${who.memberId}`, { key }), 200);
  return { id: member.id, name: member.name, email: member.email };
}

/** A single-use sign-in token for the member with `email` (the owner when absent), as `npm start`'s banner gets one. */
export async function signInToken(tp: TestPlatform, teamId: string, email?: string): Promise<string> {
  return (await operatorSignInLink(tp, teamId, email)).token;
}

export interface SignedIn {
  context: BrowserContext;
  page: Page;
  /** Problems the page reported: uncaught errors and CSP refusals (a test expects none). */
  problems: string[];
}

/**
 * A new browser context signed in through the console: the link's page, its Sign in button, the
 * inbox, in the live partition (the team's `sk_live` data); `mode: 'test'` switches it with the console's switch.
 */
export async function signIn(browser: Browser, tp: TestPlatform, team: TeamKeys, opts: { email?: string; mode?: Partition; colorScheme?: 'light' | 'dark' } = {}): Promise<SignedIn> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 860 }, colorScheme: opts.colorScheme ?? 'light' });
  const page = await context.newPage();
  const problems = watchProblems(page);
  const token = await signInToken(tp, team.teamId, opts.email);
  await page.goto(`${originOf(tp)}/app/sign-in?token=${encodeURIComponent(token)}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForSelector('h1#inbox-title');
  if (opts.mode === 'test') {
    await page.getByLabel('Data').selectOption('test');
    // A function, not a string: the console's CSP refuses eval, which a string predicate needs.
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.partition select')?.value === 'test');
    await page.waitForSelector('h1#inbox-title');
  }
  return { context, page, problems };
}

export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) problems.push(`csp: ${m.text()}`);
  });
  return problems;
}

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** The serious and critical violations axe-core finds on the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern (no bypass needed).
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(AXE);
  const violations = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)`)) as Violation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`);
}

/** A ticket a customer opened (counts for the game), through the API with `key`. */
export async function customerTicket(tp: TestPlatform, team: TeamKeys, title: string, opts: { key?: string; priority?: string; customerEmail?: string; customerName?: string } = {}) {
  const body: Record<string, unknown> = {
    title,
    priority: opts.priority ?? 'normal',
    messages: [{ sender: 'customer', content: `${title}: please help.` }],
    customerName: opts.customerName ?? 'Dana Customer',
  };
  if (opts.customerEmail) body.customerEmail = opts.customerEmail;
  return expectOk(await tp.api.post(`/teams/${team.teamId}/tickets`, body, { key: opts.key ?? team.sk_live }), 201);
}

/** Polls `check` (never a fixed sleep) until it answers something truthy. */
export async function until<T>(what: string, check: () => Promise<T | null | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Another agent of the team ("Member agent", through the invitation flow), with their live secret key. */
export async function addTeammate(tp: TestPlatform): Promise<{ id: string; key: string }> {
  const mate = await addMember(tp, await WorkspaceEvents.start(tp), tp.team, 'agent', tp.team.sk_live);
  return { id: mate.id, key: mate.key };
}

/**
 * A TCP relay in front of the gateway whose connections the test can cut, as a network drop would
 * (Chromium's offline mode leaves an open stream alone). Pages opened at `origin` reach the platform
 * through it, with their own origin (the gateway takes its origin from the Host it is sent).
 */
export async function startRelay(tp: TestPlatform): Promise<{ origin: string; cut(down: boolean): void; close(): Promise<void> }> {
  const target = new URL(tp.baseUrl);
  const open = new Set<Socket>();
  let down = false;
  const server = createServer((client) => {
    if (down) return void client.destroy();
    const upstream = connect(Number(target.port), target.hostname);
    open.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    /** down: every open connection is cut and new ones are refused until `cut(false)`. */
    cut(d: boolean) {
      down = d;
      if (d) for (const sock of open) sock.destroy();
    },
    close: () => new Promise<void>((r) => {
      for (const sock of open) sock.destroy();
      server.close(() => r());
    }),
  };
}
