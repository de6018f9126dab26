import { readFileSync } from 'node:fs';
import path from 'node:path';
import { cleanup, localEnv, nodeStart, occupyFreePort, tempDir } from './processes';

// EMBEDDED_MONGO_PORT is only a preference: when something already listens there (a real MongoDB on
// the laptop, a second platform), the platform starts its embedded MongoDB on any free port instead,
// with its data folder. The test holds a free port of its own rather than 27017, which the machine
// may really use.
afterAll(cleanup);

test('the platform starts on another port when EMBEDDED_MONGO_PORT is taken, with its data folder', async () => {
  const taken = await occupyFreePort();
  const dataDir = tempDir('helpdesk-local-port-');
  const started = await nodeStart(localEnv(dataDir, { EMBEDDED_MONGO_PORT: String(taken) }));

  const printed = started.output().match(/MongoDB\s+mongodb:\/\/127\.0\.0\.1:(\d+)\//);
  expect(printed).not.toBeNull();
  expect(Number(printed![1])).not.toBe(taken);
  expect(started.output()).toContain(`journal in ${dataDir}/mongo`);

  const creds = JSON.parse(readFileSync(path.join(dataDir, 'credentials.json'), 'utf8'));
  const who = await fetch(`${started.baseUrl}/auth/whoami`, { headers: { authorization: `Bearer ${creds.keys.sk_test}` } });
  expect(who.status).toBe(200);
  expect(((await who.json()) as any).data).toMatchObject({ teamId: creds.teamId, keyType: 'secret' });

  started.child.kill('SIGTERM');
  expect(await started.exited).toEqual({ code: 0, signal: null });
}, 90_000);
