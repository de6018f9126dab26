/** The standalone process: config from the environment, listening, graceful shutdown. */
import { startEmbeddedMongo } from '@helpdesk/mongo-embedded';
import { runServiceProcess } from '@helpdesk/testing';
import { SECRET } from './helpers';

const run = (env: Record<string, string>) => runServiceProcess('services/customers/src/main.ts', env);

test('refuses to start without MONGO_URL, naming it', async () => {
  const p = run({ INTERNAL_TOKEN_SECRET: SECRET });
  expect(await p.exited).toBe(1);
  expect(p.err()).toContain('MONGO_URL');
});

test('starts from the environment, answers health checks, and exits 0 on SIGTERM', async () => {
  const m = await startEmbeddedMongo();
  try {
    const p = run({ MONGO_URL: m.uri(), INTERNAL_TOKEN_SECRET: SECRET, PORT: '0', LOG_LEVEL: 'info', HELPDESK_EMBEDDED: '1' });
    const base = await p.listening();
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/teams/x/customers`)).status).toBe(401);
    expect((await fetch(`${base}/internal/customers/cus_x`)).status).toBe(401);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  } finally {
    await m.close();
  }
});
