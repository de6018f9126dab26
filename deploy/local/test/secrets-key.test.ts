/** `npm start` and `npm run start:processes` keep their key of secrets at rest in DATA_DIR (docs/adr/0067). */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ensureSecretsKey, secretsKeyFile } from '../src/secrets-key';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'secrets-key-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('makes a key on the first start (a file only its owner reads) and keeps using it', async () => {
  const first = await ensureSecretsKey(path.join(dir, 'data'), undefined);
  expect(first.length).toBeGreaterThanOrEqual(32);
  const file = secretsKeyFile(path.join(dir, 'data'));
  expect((await stat(file)).mode & 0o777).toBe(0o600);
  expect((await readFile(file, 'utf8')).trim()).toBe(first);
  expect(await ensureSecretsKey(path.join(dir, 'data'), undefined)).toBe(first);
  // Two launchers at once keep one key.
  const other = path.join(dir, 'race');
  const [a, b] = await Promise.all([ensureSecretsKey(other, undefined), ensureSecretsKey(other, undefined)]);
  expect(a).toBe(b);
});

it('SECRETS_KEY from the environment wins and writes nothing; a damaged file stops the start', async () => {
  const fromEnv = 'x'.repeat(40);
  expect(await ensureSecretsKey(dir, fromEnv)).toBe(fromEnv);
  await expect(stat(secretsKeyFile(dir))).rejects.toThrow();
  await writeFile(secretsKeyFile(dir), 'short\n');
  await expect(ensureSecretsKey(dir, undefined)).rejects.toThrow(/holds no key of at least 32 characters/);
});
