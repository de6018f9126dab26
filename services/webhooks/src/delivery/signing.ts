import { createHmac, randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/**
 * A new signing secret in the Standard Webhooks format: `whsec_` + base64 of 32 random bytes. The
 * same string keys both signatures: `x-svc-signature` uses it as is (its UTF-8 bytes, like GitHub's
 * secret), `webhook-signature` uses the 32 decoded bytes (as the Standard Webhooks libraries do).
 */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** `x-svc-signature`: `sha256=` + lowercase hex HMAC-SHA256 of the raw body, keyed with the full secret string. */
export function svcSignature(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

export interface SignedHeaders {
  'x-svc-signature': string;
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Both signatures of one attempt. `webhook-timestamp` is the attempt's time (seconds), so a retry is
 * signed afresh and a receiver can refuse anything older than its tolerance (5 minutes in the
 * Standard Webhooks libraries): a captured request cannot be replayed later.
 */
export function signAttempt(secret: string, deliveryId: string, body: string, at: Date): SignedHeaders {
  return {
    'x-svc-signature': svcSignature(secret, body),
    'webhook-id': deliveryId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': standardSignature(secret, deliveryId, body, at),
  };
}

/**
 * `webhook-signature` as the standardwebhooks library's `sign` makes it (`v1,` + base64 HMAC-SHA256 of
 * `id.timestamp.body`, keyed with the secret's decoded bytes), with node's crypto instead of its
 * JavaScript SHA-256. A secret that is not canonical base64 is left to the library's own decoding.
 */
function standardSignature(secret: string, id: string, body: string, at: Date): string {
  const encoded = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (!key.length || key.toString('base64') !== encoded) return new Webhook(secret).sign(id, at, body);
  return `v1,${createHmac('sha256', key).update(`${id}.${Math.floor(at.getTime() / 1000)}.${body}`, 'utf8').digest('base64')}`;
}
