/** The standalone process: config from the environment, listening, graceful shutdown. */
import { startEmbeddedMongo } from '@helpdesk/mongo-embedded';
import { newSecretsKey } from '@helpdesk/kit';
import { runServiceProcess } from '@helpdesk/testing';
import { SECRET } from './helpers';

const run = (env: Record<string, string>) => runServiceProcess('services/ticketing/src/main.ts', env);

test('refuses to start without MONGO_URL, CUSTOMERS_URL or SECRETS_KEY, naming them', async () => {
  const p = run({ INTERNAL_TOKEN_SECRET: SECRET });
  expect(await p.exited).toBe(1);
  expect(p.err()).toContain('MONGO_URL');
  expect(p.err()).toContain('CUSTOMERS_URL');
  expect(p.err()).toContain('SECRETS_KEY: required');
});

test('starts from the environment, answers health checks, and exits 0 on SIGTERM', async () => {
  const m = await startEmbeddedMongo();
  try {
    const p = run({ MONGO_URL: m.uri(), CUSTOMERS_URL: 'http://127.0.0.1:9', INTERNAL_TOKEN_SECRET: SECRET, SECRETS_KEY: newSecretsKey(), PORT: '0', INBOUND_SMTP_PORT: '0', INBOUND_HTTP_PORT: '0', LOG_LEVEL: 'info', HELPDESK_EMBEDDED: '1' });
    const base = await p.listening();
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/teams/x/tickets`)).status).toBe(401);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  } finally {
    await m.close();
  }
});
