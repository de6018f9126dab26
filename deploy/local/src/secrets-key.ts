import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { newSecretsKey } from '@helpdesk/kit';

/** Where `npm start` and `npm run start:processes` keep their key of secrets at rest. */
export const secretsKeyFile = (dataDir: string) => path.join(dataDir, 'secrets-key');

/**
 * The key of secrets at rest (docs/adr/0067) for a platform started from this folder: SECRETS_KEY
 * when the environment sets it, else the one kept in `<dataDir>/secrets-key` (mode 0600), made on the
 * first start. It sits with the data it opens: without it, the webhooks' signing secrets cannot be
 * read and must be made again.
 */
export async function ensureSecretsKey(dataDir: string, fromEnv: string | undefined): Promise<string> {
  if (fromEnv) return fromEnv;
  const file = secretsKeyFile(dataDir);
  try {
    const kept = (await fs.readFile(file, 'utf8')).trim();
    if (kept.length >= 32) return kept;
    throw new Error(`${file} holds no key of at least 32 characters; restore it, or remove it and every webhook with it`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const key = newSecretsKey();
  await fs.mkdir(dataDir, { recursive: true });
  // Written whole under another name, then linked in place: two launchers starting at once keep one
  // key (the loser reads the winner's), and nobody ever reads half a file.
  const draft = `${file}.${randomUUID()}`;
  await fs.writeFile(draft, key + '\n', { mode: 0o600 });
  try {
    await fs.link(draft, file);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return (await fs.readFile(file, 'utf8')).trim();
    throw err;
  } finally {
    await fs.unlink(draft);
  }
}
