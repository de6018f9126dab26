import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { startEmbeddedMongo } from '@helpdesk/mongo-embedded';

it('main.ts starts from the environment, answers, and shuts down cleanly on SIGTERM', async () => {
  const mongo = await startEmbeddedMongo();
  const root = resolve(__dirname, '..', '..');
  const child = spawn(join(root, 'node_modules', '.bin', 'tsx'), ['gateway/src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      MONGO_URL: mongo.uri(),
      REDIS_URL: '',
      INTERNAL_TOKEN_SECRET: 'a'.repeat(40),
      SERVICE_URLS: 'ticketing=http://127.0.0.1:1',
      // Without Redis and most services: the development switch (docs/adr/0038).
      HELPDESK_EMBEDDED: '1',
      METRICS_PORT: '0',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((res, rej) => {
    child.stdout.on('data', (d) => {
      out += d;
      const m = /"url":"([^"]+)"/.exec(out);
      if (m) res(m[1]);
    });
    child.on('exit', (code) => rej(new Error(`exited ${code}: ${out}`)));
  });
  const r = await fetch(`${url}/auth/whoami`);
  expect(r.status).toBe(401);
  expect(r.headers.get('x-svc-request-id')).toMatch(/^req_/);
  const code = await new Promise<number | null>((res) => {
    child.on('exit', (c) => res(c));
    child.kill('SIGTERM');
  });
  expect(code).toBe(0);
  await mongo.close();
}, 30_000);

it('main.ts refuses to start with a bad environment, naming the variable', async () => {
  const root = resolve(__dirname, '..', '..');
  const child = spawn(join(root, 'node_modules', '.bin', 'tsx'), ['gateway/src/main.ts'], {
    cwd: root,
    env: { ...process.env, MONGO_URL: '', INTERNAL_TOKEN_SECRET: 'short', SERVICE_URLS: 'ticketing' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
  expect(code).toBe(1);
  expect(err).toMatch(/MONGO_URL/);
  expect(err).toMatch(/INTERNAL_TOKEN_SECRET/);
  expect(err).toMatch(/SERVICE_URLS/);
}, 30_000);
