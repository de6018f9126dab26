import { execFile } from 'node:child_process';
import { PARTITIONS } from '@helpdesk/contracts';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { runCli, parseDuration, type CliIo } from '../src/cli';
import { startGateway, type RunningGateway } from '../src/index';
import { bearer, logger, startBackend, startMongo, tokens } from './helpers';

let mongo: Awaited<ReturnType<typeof startMongo>>;
let backend: Awaited<ReturnType<typeof startBackend>>;
let gw: RunningGateway;
const dbName = `gw_cli_${Date.now()}`;

beforeAll(async () => {
  mongo = await startMongo();
  backend = await startBackend();
  gw = await startGateway({ port: 0, mongoUrl: mongo.uri(), dbName, tokens, services: { ticketing: backend.url }, logger, keyCacheTtlMs: 0 });
});
afterAll(async () => {
  await gw?.stop();
  await backend?.stop();
  await mongo?.close();
});

async function cli(args: string[], env: NodeJS.ProcessEnv = {}, cwd = process.cwd()) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = { out: (l) => out.push(l), err: (l) => err.push(l), env, cwd };
  const code = await runCli([...args, '--db', dbName], io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

it('team create, key create (each kind, printed once), key list (prefix only), key revoke', async () => {
  const team = await cli(['team', 'create', '--name', 'Acme Support', '--slug', 'acme', '--json', '--mongo-url', mongo.uri()]);
  expect(team.code).toBe(0);
  const teamId = JSON.parse(team.out).id as string;
  expect(JSON.parse(team.out)).toMatchObject({ name: 'Acme Support', slug: 'acme', subscriptionStatus: 'active' });

  const made: Record<string, { key: string; id: string }> = {};
  for (const type of ['secret', 'publishable']) {
    for (const mode of PARTITIONS) {
      const r = await cli(['key', 'create', '--team', teamId, '--type', type, '--mode', mode, '--name', `${type}-${mode}`], { MONGO_URL: mongo.uri() });
      expect(r.code).toBe(0);
      const key = /\n {2}((?:sk|pk)_(?:test|live)_[A-Za-z0-9]+)\n/.exec(r.out)![1];
      expect(key.startsWith(`${type === 'secret' ? 'sk' : 'pk'}_${mode}_`)).toBe(true);
      expect(r.out).toMatch(/only time the key is shown/);
      made[`${type}-${mode}`] = { key, id: /key (key_[A-Za-z0-9]+)/.exec(r.out)![1] };
      const who = await fetch(`${gw.url}/auth/whoami`, { headers: bearer(key) });
      expect(who.status).toBe(200);
      expect(((await who.json()) as any).data).toMatchObject({ teamId, keyType: type, environment: mode });
    }
  }

  const scoped = await cli(['key', 'create', '--team', teamId, '--type', 'secret', '--mode', 'test', '--scopes', 'view_tickets', '--expires-in', '30d', '--json'], { MONGO_URL: mongo.uri() });
  expect(scoped.code).toBe(0);
  const rec = JSON.parse(scoped.out).record;
  expect(rec.scopes).toEqual(['view_tickets']);
  expect(new Date(rec.expiresAt).getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);

  const list = await cli(['key', 'list', '--team', teamId], { MONGO_URL: mongo.uri() });
  expect(list.code).toBe(0);
  expect(list.out.split('\n')).toHaveLength(5);
  for (const { key, id } of Object.values(made)) {
    expect(list.out).toContain(id);
    expect(list.out).toContain(key.slice(0, 12));
    expect(list.out).not.toContain(key);
  }

  const revoke = await cli(['key', 'revoke', '--key', made['secret-test'].id], { MONGO_URL: mongo.uri() });
  expect(revoke.code).toBe(0);
  const after = await fetch(`${gw.url}/auth/whoami`, { headers: bearer(made['secret-test'].key) });
  expect(after.status).toBe(401);
  expect(((await after.json()) as any).error.code).toBe('invalid_api_key');
  expect((await cli(['key', 'list', '--team', teamId], { MONGO_URL: mongo.uri() })).out).toMatch(/revoked/);
  expect((await cli(['key', 'revoke', '--key', made['secret-test'].id], { MONGO_URL: mongo.uri() })).code).toBe(1);
});

it('expired keys made with --expires-at are refused with key_expired', async () => {
  const team = await gw.admin.createTeam({ name: 'Expiry' });
  const r = await cli(['key', 'create', '--team', team.id, '--type', 'secret', '--mode', 'live', '--expires-at', '2020-01-01T00:00:00Z', '--json', '--mongo-url', mongo.uri()]);
  expect(r.code).toBe(0);
  const res = await fetch(`${gw.url}/auth/whoami`, { headers: bearer(JSON.parse(r.out).key) });
  expect(((await res.json()) as any).error.code).toBe('key_expired');
});

it('reads the database URL from ./data/credentials.json', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-cli-'));
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'data', 'credentials.json'), JSON.stringify({ mongoUrl: mongo.uri() }));
  const r = await cli(['team', 'create', '--name', 'From File', '--json'], {}, dir);
  expect(r.code).toBe(0);
  expect(await gw.admin.getTeam(JSON.parse(r.out).id)).toMatchObject({ name: 'From File', slug: 'from-file' });
});

it('usage errors exit 2 and say what is wrong', async () => {
  expect((await cli([])).code).toBe(2);
  expect((await cli(['key', 'create', '--type', 'secret'], { MONGO_URL: mongo.uri() })).err).toMatch(/--team is required/);
  expect((await cli(['key', 'create', '--team', 'x', '--type', 'secret', '--mode', 'test', '--scopes', 'fly'], { MONGO_URL: mongo.uri() })).err).toMatch(/unknown permission/);
  expect((await cli(['key', 'create', '--team', 'x', '--type', 'root', '--mode', 'test'], { MONGO_URL: mongo.uri() })).code).toBe(2);
  expect((await cli(['team', 'create', '--name', 'x'])).err).toMatch(/no database/);
  expect((await cli(['key', 'create', '--team', '00000000-0000-4000-8000-000000000000', '--type', 'secret', '--mode', 'test'], { MONGO_URL: mongo.uri() })).code).toBe(1);
  expect((await cli(['bogus'])).code).toBe(2);
  expect(parseDuration('90m')).toBe(5_400_000);
});

it('team create with a workspace service needs the owner and the internal token secret; --member and --no-member exclude each other', async () => {
  const env = { MONGO_URL: mongo.uri(), SERVICE_URLS: 'workspace=http://127.0.0.1:9', INTERNAL_TOKEN_SECRET: 'x'.repeat(32) };
  expect((await cli(['team', 'create', '--name', 'Owned'], env)).err).toMatch(/--owner-name is required/);
  expect((await cli(['team', 'create', '--name', 'Owned', '--owner-name', 'O'], env)).err).toMatch(/--owner-email is required/);
  expect((await cli(['team', 'create', '--name', 'Owned'], { MONGO_URL: mongo.uri(), WORKSPACE_URL: 'http://127.0.0.1:9' })).err).toMatch(/INTERNAL_TOKEN_SECRET/);
  // the workspace cannot be reached: nothing is claimed to be created
  const down = await cli(['team', 'create', '--name', 'Owned', '--owner-name', 'O', '--owner-email', 'o@example.com'], env);
  expect(down.code).toBe(1);
  expect(down.err).toMatch(/workspace/);
  const both = await cli(['key', 'create', '--team', 'x', '--type', 'secret', '--mode', 'test', '--member', 'mem_x', '--no-member'], { MONGO_URL: mongo.uri() });
  expect(both.code).toBe(2);
  expect(both.err).toMatch(/--member or --no-member/);
});

it('runs as a child process (tsx src/cli.ts)', async () => {
  const root = resolve(__dirname, '..', '..');
  const { stdout } = await promisify(execFile)(join(root, 'node_modules', '.bin', 'tsx'), ['gateway/src/cli.ts', '--help'], { cwd: root });
  expect(stdout).toMatch(/team create --name NAME/);
}, 30_000);
