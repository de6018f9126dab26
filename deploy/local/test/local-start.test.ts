import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// `npm start` as a user runs it: a child process on embedded defaults with a data folder.
const root = path.resolve(__dirname, '../../..');
let dataDir: string;

function startLocal(): Promise<{ child: ChildProcess; baseUrl: string; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', '--require', './shared/kit/src/telemetry/register.ts', 'deploy/local/src/main.ts'], {
      cwd: root,
      env: { ...process.env, PORT: '0', INBOUND_SMTP_PORT: '0', INBOUND_HTTP_PORT: '0', DATA_DIR: dataDir, EMBEDDED_MONGO_PORT: '0', LOG_LEVEL: 'warn', AMQP_URL: '', REDIS_URL: '', MONGO_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`not ready in time:\n${out}`)), 60_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = out.match(/Ready: (\S+)/);
      if (m) {
        clearTimeout(timer);
        resolve({ child, baseUrl: m[1], output: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${out}`)));
  });
}

function stopLocal(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });
}

beforeAll(() => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'helpdesk-local-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test('npm start prints the base URL and four keys, reuses them and keeps data across a restart', async () => {
  const first = await startLocal();
  const creds = JSON.parse(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8'));
  expect(Object.keys(creds.keys).sort()).toEqual(['pk_live', 'pk_test', 'sk_live', 'sk_test']);
  expect(creds.keys.sk_test).toMatch(/^sk_test_/);
  expect(creds.keys.pk_live).toMatch(/^pk_live_/);
  expect(first.output()).toContain(creds.keys.sk_live);
  expect(first.output()).toContain(creds.teamId);
  expect(first.output()).toMatch(/mongodb:\/\//);

  const auth = { authorization: `Bearer ${creds.keys.sk_test}`, 'content-type': 'application/json' };
  const who = await fetch(`${first.baseUrl}/auth/whoami`, { headers: auth });
  expect(who.status).toBe(200);
  expect(((await who.json()) as any).data).toMatchObject({ teamId: creds.teamId, keyType: 'secret', environment: 'test' });
  const created = await fetch(`${first.baseUrl}/teams/${creds.teamId}/tickets`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ title: 'Survives a restart' }),
  });
  expect(created.status).toBe(201);
  const ticketId = ((await created.json()) as any).data.id;

  // the banner's sign-in link (docs/adr/0068) signs the owner in to the console once
  const origin = new URL(first.baseUrl).origin;
  const link = new RegExp(`sign in +${origin.replace(/[.]/g, '\\.')}/app/sign-in\\?token=(hdsil_[0-9a-f]{32}_[A-Za-z0-9]{40}) \\(the owner`).exec(first.output());
  expect(link).not.toBeNull();
  const signIn = () => fetch(`${first.baseUrl}/auth/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify({ token: link![1], mode: 'test' }) });
  const session = await signIn();
  expect(session.status).toBe(201);
  expect(((await session.json()) as any).data.member).toMatchObject({ id: creds.ownerMemberId, role: 'owner' });
  const cookie = session.headers.get('set-cookie')!.split(';')[0];
  const read = await fetch(`${first.baseUrl}/teams/${creds.teamId}/tickets/${ticketId}`, { headers: { cookie } });
  expect(read.status).toBe(200);
  expect((await signIn()).status).toBe(409);
  expect(await stopLocal(first.child, 'SIGTERM')).toBe(0);

  const second = await startLocal();
  const again = JSON.parse(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8'));
  expect(again.keys).toEqual(creds.keys);
  expect(again.teamId).toBe(creds.teamId);
  const fetched = await fetch(`${second.baseUrl}/teams/${creds.teamId}/tickets/${ticketId}`, { headers: auth });
  expect(fetched.status).toBe(200);
  expect(((await fetched.json()) as any).data.title).toBe('Survives a restart');
  expect(await stopLocal(second.child, 'SIGINT')).toBe(0);
}, 120_000);
