/** The standalone process: config from the environment, listening, graceful shutdown. */
import mongoose from 'mongoose';
import { startEmbeddedMongo } from '@helpdesk/mongo-embedded';
import { runServiceProcess } from '@helpdesk/testing';
import { SECRET } from './helpers';

const run = (env: Record<string, string>) => runServiceProcess('services/workspace/src/main.ts', env);

test('refuses to start without MONGO_URL, or with an INVITE_ACCEPT_URL that is no URL, naming it', async () => {
  const p = run({ INTERNAL_TOKEN_SECRET: SECRET });
  expect(await p.exited).toBe(1);
  expect(p.err()).toContain('MONGO_URL');
  const q = run({ INTERNAL_TOKEN_SECRET: SECRET, MONGO_URL: 'mongodb://127.0.0.1:1', INVITE_ACCEPT_URL: 'not a url' });
  expect(await q.exited).toBe(1);
  expect(q.err()).toContain('INVITE_ACCEPT_URL');
  const r = run({ INTERNAL_TOKEN_SECRET: SECRET, MONGO_URL: 'mongodb://127.0.0.1:1', AUDIT_RETENTION_DAYS: '0' });
  expect(await r.exited).toBe(1);
  expect(r.err()).toContain('AUDIT_RETENTION_DAYS');
});

test('AUDIT_RETENTION_DAYS sets the audit log TTL index', async () => {
  const m = await startEmbeddedMongo();
  const conn = mongoose.createConnection(m.uri(), { dbName: 'workspace' });
  try {
    const p = run({ MONGO_URL: m.uri(), INTERNAL_TOKEN_SECRET: SECRET, PORT: '0', HELPDESK_EMBEDDED: '1', AUDIT_RETENTION_DAYS: '30' });
    await p.listening();
    const indexes = await conn.collection('audit_log').indexes();
    expect(indexes.find((i) => i.key.createdAt === 1)?.expireAfterSeconds).toBe(30 * 24 * 60 * 60);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  } finally {
    await conn.close();
    await m.close();
  }
});

test('starts from the environment, answers health checks, refuses calls without a token, and exits 0 on SIGTERM', async () => {
  const m = await startEmbeddedMongo();
  try {
    const p = run({ MONGO_URL: m.uri(), INTERNAL_TOKEN_SECRET: SECRET, PORT: '0', LOG_LEVEL: 'info', HELPDESK_EMBEDDED: '1' });
    const base = await p.listening();
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/teams/x/members`)).status).toBe(401);
    expect((await fetch(`${base}/internal/access`)).status).toBe(401);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  } finally {
    await m.close();
  }
});
