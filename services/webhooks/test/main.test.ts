/** The standalone process: config from the environment (WEBHOOKS_* included), listening, graceful shutdown. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { startEmbeddedMongo } from '@helpdesk/mongo-embedded';
import { SECRET } from './helpers';

const root = path.resolve(__dirname, '../../..');
const tsx = path.join(root, 'node_modules/.bin/tsx');
const main = path.join(root, 'services/webhooks/src/main.ts');

function run(env: Record<string, string>) {
  const child = spawn(tsx, [main], { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, out: () => out, err: () => err };
}

test.each([
  ['MONGO_URL', {}],
  ['WEBHOOKS_TIMEOUT_MS', { MONGO_URL: 'mongodb://127.0.0.1:1/', WEBHOOKS_TIMEOUT_MS: '15001' }],
  ['WEBHOOKS_TIMEOUT_MS', { MONGO_URL: 'mongodb://127.0.0.1:1/', WEBHOOKS_TIMEOUT_MS: 'ten' }],
])('refuses to start without a valid %s, naming it', async (name, env) => {
  const p = run({ INTERNAL_TOKEN_SECRET: SECRET, ...env });
  expect(await p.exited).toBe(1);
  expect(p.err()).toContain(name);
});

test('starts from the environment, answers health checks, and exits 0 on SIGTERM', async () => {
  const m = await startEmbeddedMongo();
  try {
    const p = run({ MONGO_URL: m.uri(), INTERNAL_TOKEN_SECRET: SECRET, PORT: '0', LOG_LEVEL: 'info', WEBHOOKS_ALLOW_LOOPBACK: 'true', WEBHOOKS_TIMEOUT_MS: '15000' });
    let url: string | undefined;
    for (let i = 0; i < 300 && !url; i++) {
      await new Promise((r) => setTimeout(r, 50));
      url = /"url":"(http:\/\/[^"]+)"/.exec(p.out())?.[1];
    }
    expect(url).toBeDefined();
    const base = url!.replace('0.0.0.0', '127.0.0.1');
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/teams/x/webhooks`)).status).toBe(401);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  } finally {
    await m.close();
  }
}, 30_000);
