/** The standalone process: config from the environment, listening, graceful shutdown. */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedMongo } from '@helpdesk/mongo-embedded';
import { runServiceProcess } from '@helpdesk/testing';
import { SECRET } from './helpers';

const run = (env: Record<string, string>) => runServiceProcess('services/notifications/src/main.ts', env);

test('refuses to start without MONGO_URL or WORKSPACE_URL, naming them', async () => {
  const p = run({ INTERNAL_TOKEN_SECRET: SECRET });
  expect(await p.exited).toBe(1);
  expect(p.err()).toContain('MONGO_URL');
  expect(p.err()).toContain('WORKSPACE_URL');
});

test('refuses to start without REDIS_URL outside development, naming it and why', async () => {
  const m = await startEmbeddedMongo();
  try {
    const p = run({ MONGO_URL: m.uri(), INTERNAL_TOKEN_SECRET: SECRET, PORT: '0', AMQP_URL: 'amqp://127.0.0.1:9', WORKSPACE_URL: 'http://127.0.0.1:9', NODE_ENV: 'production' });
    expect(await p.exited).toBe(1);
    expect(p.err()).toMatch(/REDIS_URL: required \(or HELPDESK_EMBEDDED=1 for development: an in-process stream log; one replica only/);
  } finally {
    await m.close();
  }
});

test('starts from the environment, answers health checks, and exits 0 on SIGTERM', async () => {
  const m = await startEmbeddedMongo();
  try {
    const DATA_DIR = mkdtempSync(path.join(os.tmpdir(), 'notifications-main-'));
    const p = run({ MONGO_URL: m.uri(), INTERNAL_TOKEN_SECRET: SECRET, PORT: '0', LOG_LEVEL: 'info', HELPDESK_EMBEDDED: '1', WORKSPACE_URL: 'http://127.0.0.1:9', DATA_DIR });
    const base = await p.listening();
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/teams/x/notifications?userId=mem_x`)).status).toBe(401);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  } finally {
    await m.close();
  }
});
