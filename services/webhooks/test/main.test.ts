/** The standalone process: config from the environment (WEBHOOKS_* included), listening, graceful shutdown. */
import { startEmbeddedMongo } from '@helpdesk/mongo-embedded';
import { newSecretsKey } from '@helpdesk/kit';
import { runServiceProcess } from '@helpdesk/testing';
import { SECRET } from './helpers';

const run = (env: Record<string, string>) => runServiceProcess('services/webhooks/src/main.ts', env);
const KEY = newSecretsKey();

test.each([
  ['MONGO_URL', {}],
  ['SECRETS_KEY: required', { MONGO_URL: 'mongodb://127.0.0.1:1/' }],
  ['SECRETS_KEY: must be at least 32 characters', { MONGO_URL: 'mongodb://127.0.0.1:1/', SECRETS_KEY: 'short' }],
  ['WEBHOOKS_TIMEOUT_MS', { MONGO_URL: 'mongodb://127.0.0.1:1/', SECRETS_KEY: KEY, WEBHOOKS_TIMEOUT_MS: '15001' }],
  ['WEBHOOKS_TIMEOUT_MS', { MONGO_URL: 'mongodb://127.0.0.1:1/', SECRETS_KEY: KEY, WEBHOOKS_TIMEOUT_MS: 'ten' }],
])('refuses to start without a valid %s, naming it', async (name, env) => {
  const p = run({ INTERNAL_TOKEN_SECRET: SECRET, ...env });
  expect(await p.exited).toBe(1);
  expect(p.err()).toContain(name);
});

test('starts from the environment, answers health checks, and exits 0 on SIGTERM', async () => {
  const m = await startEmbeddedMongo();
  try {
    const p = run({ MONGO_URL: m.uri(), INTERNAL_TOKEN_SECRET: SECRET, SECRETS_KEY: KEY, PORT: '0', LOG_LEVEL: 'info', HELPDESK_EMBEDDED: '1', WEBHOOKS_ALLOW_LOOPBACK: 'true', WEBHOOKS_TIMEOUT_MS: '15000' });
    const base = await p.listening();
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/teams/x/webhooks`)).status).toBe(401);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  } finally {
    await m.close();
  }
}, 30_000);
