/** The standalone process: config from the environment, health checks, graceful shutdown. */
import { startEmbeddedMongo } from '@helpdesk/mongo-embedded';
import { runServiceProcess, TEST_INTERNAL_SECRET } from '@helpdesk/testing';

const run = (env: Record<string, string>) => runServiceProcess('services/dataops/src/main.ts', env);
const OWNERS = ['TICKETING_URL', 'CUSTOMERS_URL', 'KNOWLEDGE_URL', 'COMMUNITY_URL', 'WORKSPACE_URL'];

test('refuses to start without MONGO_URL or the owning services\' URLs, naming them', async () => {
  const p = run({ INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET });
  expect(await p.exited).toBe(1);
  for (const name of ['MONGO_URL', ...OWNERS]) expect(p.err()).toContain(name);
});

test('starts from the environment, answers health checks, refuses calls without a token, and exits 0 on SIGTERM', async () => {
  const m = await startEmbeddedMongo();
  try {
    const owners = Object.fromEntries(OWNERS.map((name) => [name, 'http://127.0.0.1:9']));
    const p = run({ MONGO_URL: m.uri(), INTERNAL_TOKEN_SECRET: TEST_INTERNAL_SECRET, PORT: '0', LOG_LEVEL: 'info', HELPDESK_EMBEDDED: '1', ...owners });
    const base = await p.listening();
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/teams/x/search?q=a`)).status).toBe(401);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  } finally {
    await m.close();
  }
});
