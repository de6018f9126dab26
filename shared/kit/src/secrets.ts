import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { z } from 'zod';

/**
 * Secrets kept to be used later (webhook signing secrets, answers replayed for an Idempotency-Key),
 * encrypted at rest with AES-256-GCM under a key from the environment (docs/adr/0067). Secrets that
 * are only compared (API keys, invite and session tokens, inbound-email secrets) are hashed instead,
 * and never come here.
 *
 * A sealed value is one string: `enc:v1:<keyId>:<base64url(iv ‖ ciphertext ‖ tag)>`. `keyId` names
 * the key that sealed it (a fingerprint of the key, not the key), so that values sealed under a
 * previous key still open after a rotation and the rotation command finds what it must re-seal.
 * `context` (the collection, field and record a value belongs to) is authenticated with it: a value
 * copied to another record does not open.
 */
const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEALED_RE = /^enc:v1:([A-Za-z0-9_-]{8}):([A-Za-z0-9_-]+)$/;

/** A value that cannot be opened: sealed with a key this process does not have, altered, or not sealed at all. */
export class SecretOpenError extends Error {}

interface Key {
  id: string;
  key: Buffer;
}

/**
 * The AES-256 key of a `SECRETS_KEY` (at least 32 characters, e.g. `openssl rand -base64 32`): derived
 * with HKDF-SHA256, so any string of enough entropy makes a full-length key.
 */
function keyOf(secret: string): Key {
  const key = Buffer.from(hkdfSync('sha256', secret, 'helpdesk', 'secrets at rest v1', 32));
  const id = createHash('sha256').update('helpdesk secrets key id\0').update(key).digest('base64url').slice(0, 8);
  return { id, key };
}

export class SecretBox {
  private readonly current: Key;
  private readonly keys: Map<string, Key>;

  /** `current` seals and opens; each of `previous` only opens (values sealed before a rotation). */
  constructor(current: string, previous: readonly string[] = []) {
    this.current = keyOf(current);
    this.keys = new Map([this.current, ...previous.map(keyOf)].map((k) => [k.id, k]));
  }

  /** The id of the key new values are sealed with. */
  get keyId(): string {
    return this.current.id;
  }

  static isSealed(value: string): boolean {
    return value.startsWith(PREFIX);
  }

  /** The id of the key a sealed value was sealed with, or null when it is not a sealed value. */
  static keyIdOf(value: string): string | null {
    return SEALED_RE.exec(value)?.[1] ?? null;
  }

  seal(plain: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const sealed = Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}${this.current.id}:${sealed.toString('base64url')}`;
  }

  open(value: string, context: string): string {
    const m = SEALED_RE.exec(value);
    if (!m) throw new SecretOpenError('not a sealed value');
    const key = this.keys.get(m[1]!);
    if (!key) throw new SecretOpenError(`sealed with key ${m[1]}, which is neither SECRETS_KEY nor one of SECRETS_KEY_PREVIOUS`);
    const sealed = Buffer.from(m[2]!, 'base64url');
    if (sealed.length < IV_BYTES + TAG_BYTES) throw new SecretOpenError('a sealed value cut short');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.key, sealed.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretOpenError(`a sealed value that does not open under key ${m[1]} (altered, or moved from ${context})`);
    }
  }

  /**
   * A stored value as it should be stored now: a plain one (from before encryption at rest) sealed,
   * one sealed under a previous key sealed again under the current one; null when it already is.
   */
  resealed(value: string, context: string): string | null {
    if (!SecretBox.isSealed(value)) return this.seal(value, context);
    if (SecretBox.keyIdOf(value) === this.current.id) return null;
    return this.seal(this.open(value, context), context);
  }

  /** A stored value in the clear: sealed ones opened, plain ones (from before encryption at rest) as they are. */
  reveal(value: string, context: string): string {
    return SecretBox.isSealed(value) ? this.open(value, context) : value;
  }
}

/** A random SECRETS_KEY (what `npm start` keeps in its data folder; `openssl rand -base64 32` does the same). */
export const newSecretsKey = (): string => randomBytes(32).toString('base64');

const keyText = z.string().min(32, 'must be at least 32 characters (e.g. `openssl rand -base64 32`)');

/**
 * The variables of a process that keeps secrets at rest: `SECRETS_KEY` (required: without it nothing
 * sealed could be read after a restart) and `SECRETS_KEY_PREVIOUS` (comma-separated keys that only
 * open, while a rotation is under way).
 */
export const secretsEnvSchema = z.object({
  SECRETS_KEY: z
    .string({ error: (i) => (i.input === undefined ? 'required: the key of secrets at rest (at least 32 random characters, e.g. `openssl rand -base64 32`)' : 'must be a string') })
    .pipe(keyText)
    .describe('Key of the secrets kept at rest (webhook signing secrets, replayable answers): AES-256-GCM, at least 32 random characters (`openssl rand -base64 32`); the same value in every process that reads it (docs/adr/0067).'),
  SECRETS_KEY_PREVIOUS: z
    .preprocess((v) => (v === '' ? undefined : v), z.string().optional())
    .transform((v, ctx) => {
      const keys = (v ?? '').split(',').map((k) => k.trim()).filter(Boolean);
      for (const k of keys) if (!keyText.safeParse(k).success) ctx.addIssue({ code: 'custom', message: 'each key must be at least 32 characters' });
      return keys;
    })
    .describe('During a key rotation: the keys sealed values may still be under (comma-separated), read but never written; empty otherwise (docs/adr/0067).'),
});

export const secretBoxOf = (env: z.infer<typeof secretsEnvSchema>): SecretBox => new SecretBox(env.SECRETS_KEY, env.SECRETS_KEY_PREVIOUS);
