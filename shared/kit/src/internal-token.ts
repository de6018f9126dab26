import { createHmac } from 'node:crypto';
import { jwtVerify } from 'jose';
import {
  INTERNAL_TOKEN_AUDIENCE,
  INTERNAL_TOKEN_ISSUER,
  tokenClaimsSchema,
  type InternalClaims,
  type TokenClaims,
} from '@helpdesk/contracts';

/** The claims that stay the same for every request of one key (all but the request id). */
export type KeyClaims = Omit<InternalClaims, 'requestId'>;

const HEADER_B64 = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
const CLAIMS_TAIL = `,"iss":${JSON.stringify(INTERNAL_TOKEN_ISSUER)},"aud":${JSON.stringify(INTERNAL_TOKEN_AUDIENCE)},"iat":`;
/** Request ids are ours (`req_…`) or a calling service's: short, URL-safe, nothing to inject into logs. */
const REQUEST_ID = /^[A-Za-z0-9_-]{1,100}$/;
/** Bounds of the per-process caches (tokens minted per key, tokens verified): far above the keys in use at once. */
const CACHE_MAX = 10_000;

interface Verified {
  claims: KeyClaims;
  expiresAtMs: number;
}

/**
 * The gateway mints HS256 JWTs for the services; services refuse a request without a valid one (they
 * never trust a bare header). The key is INTERNAL_TOKEN_SECRET. Signing is a plain HMAC with
 * node:crypto (jose's WebCrypto path costs ~100 µs of CPU for the same bytes).
 *
 * The hot path (docs/adr/0019): the gateway mints ONE token per key's claims (`mintForKey`), reused
 * for half its lifetime, and sends the request id in its own header; a service verifies each token
 * string once (jose) and keeps its claims until the token expires (`verify` with the header's request
 * id). The caches are keyed by the exact claims and token text, so a change of a key's permissions,
 * member or mode mints and verifies a new token at once; a revoked or expired key is refused by the
 * gateway before any token is used (docs/adr/0001's bounds).
 */
export class InternalTokens {
  private readonly key: Buffer;
  private readonly verifyKey: Uint8Array;
  /** Each key's claim JSON, computed once per cached claims object. */
  private readonly heads = new WeakMap<KeyClaims, string>();
  /** Per-key tokens by claim JSON: the token and when to mint a fresh one. */
  private readonly minted = new Map<string, { token: string; renewAtMs: number }>();
  /** Per-key tokens already verified here, with their claims, until they expire. */
  private readonly verified = new Map<string, Verified>();

  constructor(secret: string, private readonly ttlSeconds = 60) {
    if (secret.length < 32) throw new Error('INTERNAL_TOKEN_SECRET must be at least 32 characters');
    this.key = Buffer.from(secret, 'utf8');
    this.verifyKey = new Uint8Array(this.key);
  }

  private headOf(claims: KeyClaims): string {
    let head = this.heads.get(claims);
    if (head === undefined) {
      const { teamId, mode, keyId, keyType, memberId, permissions } = claims;
      head = JSON.stringify({ teamId, mode, keyId, keyType, memberId, permissions }).slice(0, -1);
      this.heads.set(claims, head);
    }
    return head;
  }

  private signPayload(payload: string): string {
    const input = `${HEADER_B64}.${Buffer.from(payload).toString('base64url')}`;
    return `${input}.${createHmac('sha256', this.key).update(input).digest('base64url')}`;
  }

  /** A token for one request: the key's claims plus the request id, valid for the TTL. */
  mint(claims: KeyClaims, requestId: string): string {
    const now = Math.floor(Date.now() / 1000);
    return this.signPayload(`${this.headOf(claims)},"requestId":${JSON.stringify(requestId)}${CLAIMS_TAIL}${now},"exp":${now + this.ttlSeconds}}`);
  }

  /**
   * The token of every request made with these claims (no request id in it: send that in
   * REQUEST_ID_HEADER). Minted again once half its lifetime has passed, so a service always gets
   * one with at least half the TTL left.
   */
  mintForKey(claims: KeyClaims): string {
    const head = this.headOf(claims);
    const nowMs = Date.now();
    const hit = this.minted.get(head);
    if (hit && hit.renewAtMs > nowMs) return hit.token;
    const now = Math.floor(nowMs / 1000);
    const token = this.signPayload(`${head}${CLAIMS_TAIL}${now},"exp":${now + this.ttlSeconds}}`);
    if (this.minted.size >= CACHE_MAX) this.minted.clear();
    this.minted.set(head, { token, renewAtMs: nowMs + (this.ttlSeconds * 1000) / 2 });
    return token;
  }

  sign(claims: InternalClaims): Promise<string> {
    const { requestId, ...keyClaims } = claims;
    return Promise.resolve(this.mint(keyClaims, requestId));
  }

  /**
   * A per-key token verified before and not yet expired: its claims with `requestId` (the header's);
   * null when the token must be verified (`verify`) or the request id is not a valid one.
   */
  cached(token: string, requestId: string | undefined): InternalClaims | null {
    const hit = this.verified.get(token);
    if (!hit || requestId === undefined || !REQUEST_ID.test(requestId)) return null;
    if (hit.expiresAtMs <= Date.now()) {
      this.verified.delete(token);
      return null;
    }
    return { ...hit.claims, requestId };
  }

  /**
   * Resolves the claims, or rejects when the token is missing, forged, expired or malformed, or when
   * neither the token nor `requestId` (REQUEST_ID_HEADER) names a valid request id. A per-key token's
   * claims are kept until it expires, so the next request with it is answered by `cached`.
   */
  async verify(token: string, requestId?: string): Promise<InternalClaims> {
    const cached = this.cached(token, requestId);
    if (cached) return cached;
    const { payload } = await jwtVerify(token, this.verifyKey, {
      issuer: INTERNAL_TOKEN_ISSUER,
      audience: INTERNAL_TOKEN_AUDIENCE,
      algorithms: ['HS256'],
      requiredClaims: ['exp'],
    });
    // zod drops the registered claims (iss, aud, iat, exp): what is left is ours.
    const { requestId: inToken, ...keyClaims }: TokenClaims = tokenClaimsSchema.parse(payload);
    if (inToken !== undefined) return { ...keyClaims, requestId: inToken };
    if (requestId === undefined || !REQUEST_ID.test(requestId)) throw new Error('internal token without a request id');
    if (this.verified.size >= CACHE_MAX) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, { claims: keyClaims, expiresAtMs: payload.exp! * 1000 });
    return { ...keyClaims, requestId };
  }
}
