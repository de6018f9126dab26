import { createHmac } from 'node:crypto';
import { jwtVerify } from 'jose';
import {
  internalClaimsSchema,
  INTERNAL_TOKEN_AUDIENCE,
  INTERNAL_TOKEN_ISSUER,
  type InternalClaims,
} from '@helpdesk/contracts';

/** The claims that stay the same for every request of one key (all but the request id). */
export type KeyClaims = Omit<InternalClaims, 'requestId'>;

const HEADER_B64 = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
const CLAIMS_TAIL = `,"iss":${JSON.stringify(INTERNAL_TOKEN_ISSUER)},"aud":${JSON.stringify(INTERNAL_TOKEN_AUDIENCE)},"iat":`;

/**
 * The gateway mints a short-lived HS256 JWT per proxied request; services verify it with jose and
 * refuse a request without a valid one (they never trust a bare header). The key is
 * INTERNAL_TOKEN_SECRET. Signing is a plain HMAC with node:crypto: jose's WebCrypto path costs
 * ~100 µs of CPU per request, the largest single cost in the gateway, for the same bytes.
 */
export class InternalTokens {
  private readonly key: Buffer;
  private readonly verifyKey: Uint8Array;
  /** Each key's claim JSON, computed once per cached claims object. */
  private readonly heads = new WeakMap<KeyClaims, string>();

  constructor(secret: string, private readonly ttlSeconds = 60) {
    if (secret.length < 32) throw new Error('INTERNAL_TOKEN_SECRET must be at least 32 characters');
    this.key = Buffer.from(secret, 'utf8');
    this.verifyKey = new Uint8Array(this.key);
  }

  /** A token for one request: the key's claims plus the request id, valid for the TTL. */
  mint(claims: KeyClaims, requestId: string): string {
    let head = this.heads.get(claims);
    if (head === undefined) {
      const { teamId, mode, keyId, keyType, memberId, permissions } = claims;
      head = JSON.stringify({ teamId, mode, keyId, keyType, memberId, permissions }).slice(0, -1);
      this.heads.set(claims, head);
    }
    const now = Math.floor(Date.now() / 1000);
    const payload = `${head},"requestId":${JSON.stringify(requestId)}${CLAIMS_TAIL}${now},"exp":${now + this.ttlSeconds}}`;
    const input = `${HEADER_B64}.${Buffer.from(payload).toString('base64url')}`;
    return `${input}.${createHmac('sha256', this.key).update(input).digest('base64url')}`;
  }

  sign(claims: InternalClaims): Promise<string> {
    const { requestId, ...keyClaims } = claims;
    return Promise.resolve(this.mint(keyClaims, requestId));
  }

  /** Resolves the claims, or rejects when the token is missing, forged, expired or malformed. */
  async verify(token: string): Promise<InternalClaims> {
    const { payload } = await jwtVerify(token, this.verifyKey, {
      issuer: INTERNAL_TOKEN_ISSUER,
      audience: INTERNAL_TOKEN_AUDIENCE,
      algorithms: ['HS256'],
    });
    return internalClaimsSchema.parse(payload);
  }
}
