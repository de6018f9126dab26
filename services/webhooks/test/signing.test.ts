/** Secrets and both signatures, checked with the receivers' own libraries. */
import { createHmac } from 'node:crypto';
import { verify } from './octokit';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { newSecret, signAttempt, svcSignature } from '../src/delivery/signing';
import { deliveryBody } from '../src/delivery/body';

const body = deliveryBody({ id: 'evt_abcdefgh12345678', type: 'ticket.created', occurredAt: '2026-01-01T00:00:00.000Z', teamId: '8f0e1c2a-1b2c-4d5e-8f90-123456789abc', mode: 'test', data: { ticket: { id: 'tkt_x', title: 'Ünïcode ✓' } } });

test('a secret is whsec_ + base64 of 32 random bytes, different every time', () => {
  const secrets = Array.from({ length: 50 }, newSecret);
  for (const s of secrets) {
    expect(s).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(s.slice(6), 'base64')).toHaveLength(32);
  }
  expect(new Set(secrets).size).toBe(50);
});

test('x-svc-signature is sha256= + lowercase hex HMAC-SHA256 of the raw body, keyed with the full secret string', async () => {
  const secret = newSecret();
  const sig = svcSignature(secret, body);
  expect(sig).toBe(`sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(body, 'utf8')).digest('hex')}`);
  expect(sig).toMatch(/^sha256=[0-9a-f]{64}$/);
  expect(await verify(secret, body, sig)).toBe(true);
  expect(await verify(secret, body + ' ', sig)).toBe(false);
  expect(await verify(newSecret(), body, sig)).toBe(false);
});

test('a known vector: the signature does not depend on anything but the secret and the bytes', () => {
  expect(svcSignature('whsec_test', '{"a":1}')).toBe(`sha256=${createHmac('sha256', 'whsec_test').update('{"a":1}').digest('hex')}`);
});

describe('Standard Webhooks headers', () => {
  const secret = newSecret();
  const wh = new Webhook(secret);

  test('webhook-signature is exactly what the standardwebhooks library signs, for any secret and body', () => {
    const at = new Date('2026-03-04T05:06:07.890Z');
    for (const s of [...Array.from({ length: 20 }, newSecret), 'whsec_dGVzdA==', 'dGVzdA==']) {
      for (const b of [body, '', '{"x":"✓ \u0000"}']) expect(signAttempt(s, 'dlv_abcdefgh12345678', b, at)['webhook-signature']).toBe(new Webhook(s).sign('dlv_abcdefgh12345678', at, b));
    }
    // A secret the library cannot decode is refused alike.
    expect(() => new Webhook('whsec_not base64!').sign('dlv_1', at, body)).toThrow();
    expect(() => signAttempt('whsec_not base64!', 'dlv_1', body, at)).toThrow();
  });

  test('webhook-id is the delivery id, webhook-timestamp the attempt time in seconds; the standardwebhooks library verifies them', () => {
    const at = new Date();
    const h = signAttempt(secret, 'dlv_abcdefgh12345678', body, at);
    expect(h['webhook-id']).toBe('dlv_abcdefgh12345678');
    expect(h['webhook-timestamp']).toBe(String(Math.floor(at.getTime() / 1000)));
    expect(h['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(wh.verify(body, h)).toEqual(JSON.parse(body));
  });

  test('a delivery replayed more than 5 minutes after it was signed is rejected', () => {
    const signedAt = new Date();
    const h = signAttempt(secret, 'dlv_abcdefgh12345678', body, signedAt);
    jest.useFakeTimers({ now: signedAt.getTime() + 5 * 60_000 + 1_000 });
    try {
      expect(() => wh.verify(body, h)).toThrow(new WebhookVerificationError('Message timestamp too old'));
    } finally {
      jest.useRealTimers();
    }
    expect(wh.verify(body, h)).toEqual(JSON.parse(body)); // the same headers, at the right time
  });

  test('a changed body, id or timestamp, or another secret, does not verify', () => {
    const h = signAttempt(secret, 'dlv_abcdefgh12345678', body, new Date());
    expect(() => wh.verify(body.replace('test', 'live'), h)).toThrow('No matching signature found');
    expect(() => wh.verify(body, { ...h, 'webhook-id': 'dlv_other000000000000' })).toThrow('No matching signature found');
    expect(() => wh.verify(body, { ...h, 'webhook-timestamp': String(Number(h['webhook-timestamp']) - 1) })).toThrow('No matching signature found');
    expect(() => new Webhook(newSecret()).verify(body, h)).toThrow('No matching signature found');
  });

  test('each attempt is signed afresh (a retry carries a new timestamp and signature)', () => {
    const a = signAttempt(secret, 'dlv_abcdefgh12345678', body, new Date(1_800_000_000_000));
    const b = signAttempt(secret, 'dlv_abcdefgh12345678', body, new Date(1_800_000_005_000));
    expect(a['webhook-signature']).not.toBe(b['webhook-signature']);
    expect(a['x-svc-signature']).toBe(b['x-svc-signature']);
  });
});

test('the body is {id, type, createdAt, teamId, mode, data}, plus test: true for test events', () => {
  expect(Object.keys(JSON.parse(body))).toEqual(['id', 'type', 'createdAt', 'teamId', 'mode', 'data']);
  const t = JSON.parse(deliveryBody({ id: 'evt_x', type: 'ticket.closed', occurredAt: 'x', teamId: 't', mode: 'live', data: {} }, true));
  expect(t).toEqual({ id: 'evt_x', type: 'ticket.closed', createdAt: 'x', teamId: 't', mode: 'live', test: true, data: {} });
});
