import { loadConfig, newSecretsKey, SecretBox, secretBoxOf, SecretOpenError, secretsEnvSchema } from '../src';

const OLD = newSecretsKey();
const NEW = newSecretsKey();

describe('SecretBox (AES-256-GCM, docs/adr/0067)', () => {
  const box = new SecretBox(OLD);

  it('seals to a versioned envelope naming its key, different every time, and opens it', () => {
    const a = box.seal('whsec_abc', 'webhooks.secret:whk_1');
    const b = box.seal('whsec_abc', 'webhooks.secret:whk_1');
    expect(a).toMatch(/^enc:v1:[A-Za-z0-9_-]{8}:[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(a).not.toContain('whsec_abc');
    expect(SecretBox.keyIdOf(a)).toBe(box.keyId);
    expect(box.open(a, 'webhooks.secret:whk_1')).toBe('whsec_abc');
    expect(box.open(b, 'webhooks.secret:whk_1')).toBe('whsec_abc');
  });

  it('refuses another record\'s value, an altered one, another key\'s, and plain text', () => {
    const sealed = box.seal('whsec_abc', 'webhooks.secret:whk_1');
    expect(() => box.open(sealed, 'webhooks.secret:whk_2')).toThrow(SecretOpenError);
    const body = sealed.slice(sealed.lastIndexOf(':') + 1);
    const flipped = sealed.slice(0, -body.length) + (body[0] === 'A' ? 'B' : 'A') + body.slice(1);
    expect(() => box.open(flipped, 'webhooks.secret:whk_1')).toThrow(SecretOpenError);
    expect(() => new SecretBox(NEW).open(sealed, 'webhooks.secret:whk_1')).toThrow(/neither SECRETS_KEY nor one of SECRETS_KEY_PREVIOUS/);
    expect(() => box.open('whsec_abc', 'x')).toThrow(/not a sealed value/);
    expect(() => box.open(sealed.slice(0, 20), 'webhooks.secret:whk_1')).toThrow(SecretOpenError);
  });

  it('rotates: a previous key still opens, resealed() moves values to the current key, and plain values get sealed', () => {
    const old = box.seal('whsec_abc', 'c');
    const rotated = new SecretBox(NEW, [OLD]);
    expect(rotated.open(old, 'c')).toBe('whsec_abc');
    const moved = rotated.resealed(old, 'c')!;
    expect(SecretBox.keyIdOf(moved)).toBe(rotated.keyId);
    expect(rotated.keyId).not.toBe(box.keyId);
    expect(rotated.resealed(moved, 'c')).toBeNull();
    expect(new SecretBox(NEW).open(moved, 'c')).toBe('whsec_abc');
    const sealedPlain = rotated.resealed('whsec_plain', 'c')!;
    expect(rotated.open(sealedPlain, 'c')).toBe('whsec_plain');
    expect(rotated.reveal('whsec_plain', 'c')).toBe('whsec_plain');
    expect(rotated.reveal(moved, 'c')).toBe('whsec_abc');
  });

  it('the same key always has the same id (values sealed before a restart open after it)', () => {
    expect(new SecretBox(OLD).keyId).toBe(box.keyId);
    expect(new SecretBox(OLD).open(box.seal('x', 'c'), 'c')).toBe('x');
  });
});

describe('secretsEnvSchema', () => {
  it('requires SECRETS_KEY of at least 32 characters; SECRETS_KEY_PREVIOUS is an optional list', () => {
    expect(() => loadConfig(secretsEnvSchema, {})).toThrow(/SECRETS_KEY: required/);
    expect(() => loadConfig(secretsEnvSchema, { SECRETS_KEY: 'short' })).toThrow(/SECRETS_KEY: must be at least 32 characters/);
    expect(() => loadConfig(secretsEnvSchema, { SECRETS_KEY: NEW, SECRETS_KEY_PREVIOUS: 'short' })).toThrow(/SECRETS_KEY_PREVIOUS: each key must be at least 32 characters/);
    expect(loadConfig(secretsEnvSchema, { SECRETS_KEY: NEW, SECRETS_KEY_PREVIOUS: '' }).SECRETS_KEY_PREVIOUS).toEqual([]);
    const env = loadConfig(secretsEnvSchema, { SECRETS_KEY: NEW, SECRETS_KEY_PREVIOUS: ` ${OLD} ,${newSecretsKey()}` });
    expect(env.SECRETS_KEY_PREVIOUS).toHaveLength(2);
    const sealed = new SecretBox(OLD).seal('x', 'c');
    expect(secretBoxOf(env).open(sealed, 'c')).toBe('x');
  });
});
