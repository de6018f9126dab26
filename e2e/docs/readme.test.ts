/**
 * The code blocks of the README and of the docs pages it sends a new user to (DOC_PAGES), run as a new
 * user runs them (the "first hour", issue 34): `npm start` on a
 * fresh data folder, the quick start's shell blocks against it, the typed client's example both in
 * this repository and in a project outside it that installs `@helpdesk/client` from its packed
 * tarball (offline: its dependency is packed from this repository's node_modules), the webhook
 * receiver receiving a signed test event, the help center. Every block of those pages is accounted
 * for: run, checked, or listed below as not run with the reason, so a new block cannot be forgotten.
 * Also: every relative link of the README and the docs resolves inside the repository.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startUntilReady, type StartedProcess } from '@helpdesk/local';
import { buildPackage } from '@helpdesk/client/scripts/package';

const root = path.resolve(__dirname, '../..');
const README = readFileSync(path.join(root, 'README.md'), 'utf8');
/** The README and the pages its depth moved to: their blocks are the user's instructions too. */
const DOC_PAGES = ['README.md', 'docs/widget-and-help-center.md', 'docs/email.md', 'docs/webhooks.md', 'docs/operating.md'];
const run = promisify(execFile);

export interface CodeBlock {
  /** The page it is in (relative to the repository root). */
  file?: string;
  lang: string;
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** The fenced code blocks of a Markdown text. */
export function codeBlocks(md: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = md.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]); i++) body.push(lines[i]);
    blocks.push({ lang: open[1], code: body.join('\n'), line: start + 1 });
  }
  return blocks;
}

/** Every block of DOC_PAGES, each with its page. */
const docBlocks = (): CodeBlock[] => DOC_PAGES.flatMap((file) => codeBlocks(readFileSync(path.join(root, file), 'utf8')).map((b) => ({ ...b, file })));

/** What this file does with each kind of block. `not run` says why, and where it is tested instead. */
type Handling = { kind: string; how: 'run' | 'checked' } | { kind: string; how: 'not run'; reason: string };

function handlingOf(b: CodeBlock): Handling | null {
  const first = b.code.trimStart().split('\n')[0];
  if (b.lang === 'bash' && first.startsWith('npm install && npm start')) {
    return { kind: 'the two commands', how: 'not run', reason: 'this test runs `npm start` itself (`npm test` is what runs this test)' };
  }
  if (b.lang === 'bash' && first.startsWith('export KEY=')) return { kind: 'quick start', how: 'run' };
  if (b.lang === 'ts' && b.code.includes('createHelpdeskClient')) return { kind: 'typed client', how: 'run' };
  if (b.lang === 'html' && b.code.includes('/widget/v1.js')) return { kind: 'widget tag', how: 'checked' };
  if (b.lang === 'bash' && first.startsWith('curl -X PATCH') && b.code.includes('/settings/widget')) return { kind: 'widget settings', how: 'run' };
  if (b.lang === 'bash' && first.startsWith('curl') && b.code.includes('/inbound-email/secret')) {
    return {
      kind: 'inbound mail webhook',
      how: 'not run',
      reason: "needs the secret shown once and a raw MIME file; e2e/platform/email-webhook.test.ts sends mail through the providers' webhook",
    };
  }
  if (b.lang === 'bash' && first.startsWith('curl') && b.code.includes('/inbound-email')) return { kind: 'inbound mail addresses', how: 'run' };
  if (b.lang === 'bash' && b.code.includes('/help-center')) return { kind: 'help center', how: 'run' };
  if (b.lang === 'json' && b.code.includes('"type": "ticket.created"')) return { kind: 'webhook body', how: 'checked' };
  if (b.lang === 'js' && b.code.includes('express()')) return { kind: 'webhook receiver', how: 'run' };
  if (b.lang === 'bash' && b.code.includes('trigger-test') && b.code.includes('receiver.mjs')) return { kind: 'webhook try-out', how: 'run' };
  if (b.lang === 'js' && b.code.includes('new Webhook(secret)')) {
    return { kind: 'standardwebhooks check', how: 'not run', reason: 'a fragment (rawBody, req); e2e/platform/webhooks-delivery.test.ts verifies deliveries with standardwebhooks' };
  }
  if (b.lang === 'sh' && b.code.includes('npm run start:processes')) {
    return { kind: 'start:processes', how: 'not run', reason: 'needs RabbitMQ and Redis: deploy/local/test/start-processes.platform.test.ts (npm run test:infra)' };
  }
  if (b.lang === 'sh' && first.startsWith('promtool ')) {
    return { kind: 'alert rules', how: 'not run', reason: "Prometheus' promtool: deploy/test/promtool.platform.test.ts runs these (npm run test:infra)" };
  }
  if (b.lang === 'text' && first.startsWith('POST [server]')) {
    return { kind: 'a trace', how: 'not run', reason: 'output, not a command: e2e/trace/otlp-trace.test.ts records this trace (one ticket create through the gateway, ticketing and the consumers)' };
  }
  if (b.lang === 'bash' && b.code.includes('npm run cli') && b.code.includes('dead-letters')) {
    return { kind: 'dead letters', how: 'not run', reason: 'needs RabbitMQ: gateway/test (the operator CLI)' };
  }
  if (b.lang === 'bash' && b.code.includes('npm run cli')) {
    return { kind: 'operator CLI', how: 'not run', reason: 'placeholders for ids a run makes; gateway/test/cli.test.ts runs each command' };
  }
  return null;
}

describe('the code blocks of the README and its docs pages', () => {
  it('every one is run, checked, or not run for a stated reason', () => {
    const blocks = docBlocks();
    expect(blocks.length).toBeGreaterThan(10);
    const unaccounted = blocks.filter((b) => handlingOf(b) === null).map((b) => `${b.file}:${b.line} (${b.lang}): ${b.code.split('\n')[0]}`);
    expect(unaccounted).toEqual([]);
    // Each kind the platform test below runs is in those pages exactly once.
    const kinds = blocks.map((b) => handlingOf(b)!).filter((h) => h.how !== 'not run').map((h) => h.kind);
    for (const kind of ['quick start', 'typed client', 'widget tag', 'widget settings', 'inbound mail addresses', 'help center', 'webhook body', 'webhook receiver', 'webhook try-out']) {
      expect({ kind, times: kinds.filter((k) => k === kind).length }).toEqual({ kind, times: 1 });
    }
  });

  it('says nothing is "in progress" that works, and no link leaves the repository or points at nothing', () => {
    expect(README).not.toMatch(/in progress/i);
    for (const file of DOC_PAGES.slice(1)) expect({ file, inProgress: /in progress/i.test(readFileSync(path.join(root, file), 'utf8')) }).toEqual({ file, inProgress: false });
    const files = ['README.md', ...mdFiles('docs'), ...readdirSync(path.join(root, 'services')).map((s) => `services/${s}/README.md`), ...readdirSync(path.join(root, 'shared')).map((s) => `shared/${s}/README.md`)].filter(
      (f) => existsSync(path.join(root, f)),
    );
    const broken: string[] = [];
    for (const file of files) {
      const text = readFileSync(path.join(root, file), 'utf8');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1].split('#')[0];
        if (!target || /^[a-z]+:/i.test(target)) continue; // an anchor, or an absolute URL
        const resolved = path.resolve(path.dirname(path.join(root, file)), decodeURI(target));
        if (!resolved.startsWith(root + path.sep) || !existsSync(resolved)) broken.push(`${file}: ${m[1]}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

function mdFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...mdFiles(rel));
    else if (entry.name.endsWith('.md')) out.push(rel);
  }
  return out;
}

// ---------- against a running platform ----------

/** The environment of a child that must not be steered by this test run's npm (`npm_config_prefix` would install into the repository). */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return { ...env, ...extra };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Stops curl on a failed answer (the README's `curl -s` prints the error body and goes on), one answer per line. */
const PRELUDE = 'set -euo pipefail\ncurl() { command curl --fail-with-body --silent --show-error "$@"; echo; }\n';

interface ShellRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Its process group (what it left running in the background: the receiver). */
  pgid: number;
}

/** Runs a block in bash, in its own process group, and settles when bash exits (its background jobs keep running). */
function runBash(code: string, opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<ShellRun> {
  const child = spawn('bash', ['-c', PRELUDE + code], { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(child.pid!);
      reject(new Error(`bash timed out:\n${code}\n${stdout}\n${stderr}`));
    }, opts.timeoutMs ?? 60_000);
    child.once('exit', (status) => {
      clearTimeout(timer);
      // What it printed before exiting is in; a background job holding the pipes does not delay us.
      setTimeout(() => resolve({ code: status, stdout, stderr, pgid: child.pid! }), 50);
    });
  });
}

const killGroup = (pgid: number) => {
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    /* gone */
  }
};

/** The JSON answers a block's curls printed, one per line (the HTML of a page is not JSON). */
const answers = (stdout: string): any[] =>
  stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));

describe('the README against `npm start`', () => {
  let work: string;
  let platform: StartedProcess;
  let port: number;
  let credentials: { teamId: string; ownerMemberId: string; keys: Record<string, string> };
  const pgids: number[] = [];
  /** A block as the user pastes it, with this run's address instead of the default port. */
  const local = (code: string) => code.replace(/(localhost|127\.0\.0\.1):8080/g, `$1:${port}`);
  const block = (kind: string) => {
    const found = docBlocks().find((b) => handlingOf(b)?.kind === kind);
    if (!found) throw new Error(`no ${kind} block in ${DOC_PAGES.join(', ')}`);
    return found.code;
  };
  /** The quick start's shell: its exported variables, in the folder npm start ran in. */
  const shellEnv = () => cleanEnv({ KEY: credentials.keys.sk_test, TEAM: credentials.teamId });
  const api = async (pathAndQuery: string, key = credentials.keys.sk_test) => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1${pathAndQuery}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), 'helpdesk-readme-'));
    // As the README's user starts it (for the webhook try-out: WEBHOOKS_ALLOW_LOOPBACK=true npm start).
    platform = await startUntilReady(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['start'], {
      env: cleanEnv({
        PATH: process.env.PATH ?? '',
        PORT: '0', DATA_DIR: path.join(work, 'data'), EMBEDDED_MONGO_PORT: '0', INBOUND_SMTP_PORT: '0', INBOUND_HTTP_PORT: '0',
        LOG_LEVEL: 'warn', AMQP_URL: '', REDIS_URL: '', MONGO_URL: '', WEBHOOKS_ALLOW_LOOPBACK: 'true',
      }),
      timeoutMs: 120_000,
    });
    port = Number(new URL(platform.baseUrl).port);
    credentials = JSON.parse(readFileSync(path.join(work, 'data', 'credentials.json'), 'utf8'));
  }, 150_000);

  afterAll(async () => {
    for (const g of pgids) killGroup(g);
    await platform?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  }, 60_000);

  it('npm start says WEBHOOKS_ALLOW_LOOPBACK is on, in the banner above Ready', () => {
    expect(platform.output()).toMatch(/\n {2}UNSAFE {6}WEBHOOKS_ALLOW_LOOPBACK=true: [^\n]+\nReady: /);
  });

  it('the quick start: keys from credentials.json, whoami, a ticket, the key\'s own player', async () => {
    const out = await runBash(local(block('quick start')), { cwd: work, env: cleanEnv() });
    expect({ code: out.code, stderr: out.stderr }).toEqual({ code: 0, stderr: '' });
    const [whoami, ticket, player] = answers(out.stdout);
    expect(whoami).toMatchObject({ success: true, data: { teamId: credentials.teamId, environment: 'test', keyType: 'secret', memberId: credentials.ownerMemberId } });
    expect(ticket).toMatchObject({ success: true, data: { title: 'Printer on fire', priority: 'urgent' } });
    expect(player).toMatchObject({ success: true, data: { object: 'player_stats', memberId: credentials.ownerMemberId } });
  });

  it('an error\'s doc_url opens the error reference at its entry, on the platform itself', async () => {
    const refused = await api('/auth/whoami', 'sk_test_notakeyatallnotakeyatallnotakeyatall');
    expect(refused.status).toBe(401);
    const docUrl: string = refused.body.error.doc_url;
    expect(docUrl).toBe(`/docs/errors#${refused.body.error.code}`);
    const page = await fetch(new URL(docUrl, `http://127.0.0.1:${port}`));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain(`id="${refused.body.error.code}"`);
  });

  it('the typed client\'s example runs as written in this repository (npx tsx, CommonJS)', async () => {
    const scratch = path.join(root, '.scratch');
    mkdirSync(scratch, { recursive: true });
    const file = path.join(scratch, `readme-example-${process.pid}-${Date.now()}.ts`);
    writeFileSync(file, local(block('typed client')));
    try {
      const { stdout } = await run(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), file], { cwd: root, env: shellEnv(), timeout: 90_000 });
      expect(stdout).toMatch(/^created tkt_\w+\n/);
      expect(stdout).toMatch(/\ntkt_\w+ Printer on fire\n/);
    } finally {
      rmSync(file, { force: true });
    }
  }, 120_000);

  it('outside the repository: the packed @helpdesk/client installs offline and the example type-checks and runs with plain node (and with tsx)', async () => {
    const packDir = path.join(work, 'pack');
    const { tarball, packageDir } = buildPackage(packDir);
    // The published layout: built JavaScript and declarations, nothing that needs tsx.
    const manifest = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: '@helpdesk/client', main: './dist/index.js', types: './dist/index.d.ts', dependencies: { 'openapi-fetch': expect.any(String) } });
    expect(manifest).not.toHaveProperty('private');
    const { stdout: listing } = await run('tar', ['tzf', tarball]);
    expect(listing.split('\n').filter(Boolean).sort()).toEqual(
      ['README.md', 'package.json', ...['client', 'errors', 'index', 'shapes', 'transport'].flatMap((f) => [`dist/${f}.d.ts`, `dist/${f}.js`]), 'dist/schema.d.ts']
        .map((f) => `package/${f}`)
        .sort(),
    );
    // Its dependency (and that one's), packed from this repository's node_modules: the install never asks the registry.
    const deps: string[] = [];
    for (const dep of ['openapi-fetch', 'openapi-typescript-helpers']) {
      const { stdout } = await run('npm', ['pack', path.join(root, 'node_modules', dep), '--pack-destination', packDir, '--ignore-scripts', '--json'], { cwd: packDir, env: cleanEnv() });
      deps.push(path.join(packDir, (JSON.parse(stdout) as { filename: string }[])[0].filename));
    }
    const app = path.join(work, 'app');
    mkdirSync(app);
    writeFileSync(path.join(app, 'package.json'), '{ "name": "my-app", "private": true }\n');
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball, ...deps], { cwd: app, env: cleanEnv(), timeout: 120_000 });
    expect(existsSync(path.join(app, 'node_modules/@helpdesk/client/dist/index.js'))).toBe(true);
    expect(existsSync(path.join(app, 'node_modules/tsx'))).toBe(false);
    // A TypeScript project has @types/node (for process.env); this one borrows the repository's.
    mkdirSync(path.join(app, 'node_modules/@types'), { recursive: true });
    symlinkSync(path.join(root, 'node_modules/@types/node'), path.join(app, 'node_modules/@types/node'), 'dir');
    writeFileSync(path.join(app, 'example.ts'), local(block('typed client')));
    const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
    await run(process.execPath, [tsc, '--strict', '--target', 'es2022', '--module', 'node16', '--moduleResolution', 'node16', '--types', 'node', '--outDir', 'out', 'example.ts'], {
      cwd: app,
      timeout: 120_000,
    });
    const compiled = await run(process.execPath, ['out/example.js'], { cwd: app, env: shellEnv(), timeout: 60_000 });
    expect(compiled.stdout).toMatch(/^created tkt_\w+\n/);
    expect(compiled.stdout).toMatch(/\ntkt_\w+ Printer on fire\n/);
    // `npx tsx example.ts` there (tsx is what npx would fetch; here the repository's copy).
    const withTsx = await run(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), 'example.ts'], { cwd: app, env: shellEnv(), timeout: 90_000 });
    expect(withTsx.stdout).toMatch(/^created tkt_\w+\n/);
    // And from an ES module, named imports.
    writeFileSync(path.join(app, 'esm.mjs'), "import { createHelpdeskClient, HelpdeskError } from '@helpdesk/client';\nconsole.log(typeof createHelpdeskClient, typeof HelpdeskError);\n");
    expect((await run(process.execPath, ['esm.mjs'], { cwd: app })).stdout).toBe('function function\n');
  }, 300_000);

  it('the widget tag\'s script is served, and its settings block runs', async () => {
    const src = /src="([^"]+)"/.exec(block('widget tag'))![1];
    const script = await fetch(local(src));
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    const placeholders = (code: string) => local(code).replace(/YOUR_TEAM_ID/g, credentials.teamId).replace(/sk_live_YOUR_KEY/g, credentials.keys.sk_live);
    const out = await runBash(placeholders(block('widget settings')), { cwd: work, env: cleanEnv() });
    expect({ code: out.code, stderr: out.stderr }).toEqual({ code: 0, stderr: '' });
    expect(answers(out.stdout)[0]).toMatchObject({ success: true, data: { object: 'widget_settings', greeting: 'Hi! How can we help?' } });
    const inbound = await runBash(placeholders(block('inbound mail addresses')), { cwd: work, env: cleanEnv() });
    expect({ code: inbound.code, stderr: inbound.stderr }).toEqual({ code: 0, stderr: '' });
    expect(answers(inbound.stdout)[0]).toMatchObject({ success: true, data: { address: `${credentials.teamId}@helpdesk.local` } });
  });

  it('the help center: turned on for the test key\'s partition, a public article in a public category is on its page', async () => {
    const out = await runBash(local(block('help center')), { cwd: work, env: shellEnv() });
    expect({ code: out.code, stderr: out.stderr }).toEqual({ code: 0, stderr: '' });
    const [helpCenter, article] = answers(out.stdout);
    expect(helpCenter.data).toMatchObject({ enabled: true, title: 'Acme help', url: '/help/development?mode=test', urls: { live: '/help/development', test: '/help/development?mode=test' } });
    expect(article.data).toMatchObject({ title: 'Resetting the printer', publiclyVisible: true, helpCenterVisible: true, hiddenBecause: [] });
    expect(out.stdout).toContain('<!doctype html>');
    expect(out.stdout).toContain('Resetting the printer');
  });

  it('the webhook body example is the shape deliveries have', () => {
    const body = JSON.parse(block('webhook body'));
    expect(Object.keys(body).sort()).toEqual(['createdAt', 'data', 'id', 'mode', 'teamId', 'type']);
  });

  it('the webhook try-out: the receiver (the README\'s code) gets a signed test event and answers 204', async () => {
    const rxPort = await freePort();
    const app = path.join(work, 'receiver');
    mkdirSync(path.join(app, 'node_modules'), { recursive: true });
    symlinkSync(path.join(root, 'node_modules/express'), path.join(app, 'node_modules/express'), 'dir'); // "a folder with express installed"
    writeFileSync(path.join(app, 'receiver.mjs'), block('webhook receiver').replace('.listen(3000)', `.listen(${rxPort})`));
    const code = local(block('webhook try-out')).replace(/127\.0\.0\.1:3000/g, `127.0.0.1:${rxPort}`);
    const out = await runBash(code, { cwd: app, env: shellEnv() });
    pgids.push(out.pgid);
    expect({ code: out.code, stderr: out.stderr }).toEqual({ code: 0, stderr: '' });
    const [triggered] = answers(out.stdout);
    expect(triggered).toMatchObject({ success: true, data: { event: 'ticket.created', test: true } });
    const delivery = triggered.data.deliveries.find((d: { url: string }) => d.url === `http://127.0.0.1:${rxPort}/hooks/helpdesk`);
    expect(delivery).toBeDefined();
    // The receiver checks the signature with the secret the create showed (401 if it did not match).
    const deadline = Date.now() + 40_000;
    let last: any;
    for (;;) {
      last = (await api(`/teams/${credentials.teamId}/webhooks/${delivery.webhookId}/deliveries/${delivery.id}`)).body.data;
      if (last.status === 'succeeded' || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(last).toMatchObject({ status: 'succeeded', test: true });
    expect(last.attempts.at(-1)).toMatchObject({ statusCode: 204, error: null });
  }, 90_000);
});
