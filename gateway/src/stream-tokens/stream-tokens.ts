import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { createStreamTokenBody, STREAM_TOKEN_TTL_MS, streamPatterns, unreadablePattern } from '@helpdesk/contracts';
import { ApiError, parseInput } from '@helpdesk/kit';
import type { KeyResolver, ResolvedKey } from '../auth';
import { hashKey } from '../keys';
import type { Exchange } from '../pipeline/exchange';

/** What a stream token carries (docs/adr/0031): its issuing key (by hash), its patterns, its end. */
export interface StreamTokenClaims {
  /** The issuing key's hash, or a console session's `session:<teamId>:<hash>` (docs/adr/0068). */
  keyHash: string;
  /** The `types` the token's streams carry; null: everything. */
  types: string | null;
  expiresAtMs: number;
}

const PREFIX = 'st_';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Stream tokens, sealed (AES-256-GCM) rather than stored: any gateway sharing the secret opens them,
 * nothing is written per token, and the browser sees neither the key's hash nor anything it could
 * change. Revocation works through the key: the token names its issuing key, which is checked on
 * every use and every few seconds while a stream is open.
 */
export class StreamTokens {
  private readonly key: Buffer;

  constructor(
    secret: string,
    /** The issuer of a token by its `keyHash`: a key, or a console session (gateway/src/index.ts). */
    private readonly resolver: Pick<KeyResolver, 'authenticateHash'>,
    private readonly ttlMs = STREAM_TOKEN_TTL_MS,
    /** How a console session names itself as a token's issuer (null for a key's request). */
    private readonly sessionIssuer: (x: Exchange) => string | null = () => null,
  ) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'helpdesk', 'gateway stream token v1', 32));
  }

  seal(claims: StreamTokenClaims): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const payload = JSON.stringify({ h: claims.keyHash, y: claims.types, e: claims.expiresAtMs });
    const sealed = Buffer.concat([iv, cipher.update(payload, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return PREFIX + sealed.toString('base64url');
  }

  /** The token's claims, or null when it was not sealed here (made up, cut, altered, another secret). */
  open(token: string): StreamTokenClaims | null {
    if (!token.startsWith(PREFIX)) return null;
    const sealed = Buffer.from(token.slice(PREFIX.length), 'base64url');
    if (sealed.length <= IV_BYTES + TAG_BYTES) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, sealed.subarray(0, IV_BYTES));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      const text = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      const p = JSON.parse(text) as { h: string; y: string | null; e: number };
      return { keyHash: p.h, types: p.y, expiresAtMs: p.e };
    } catch {
      return null;
    }
  }

  /**
   * `POST /teams/{teamId}/events/stream-tokens`: a token for the caller's key (the pipeline checked key
   * kind and team). Its types are checked as the stream checks them: a pattern that asks only for
   * events the key may not read is 403 (docs/adr/0066); the stream applies the key's permissions again
   * whenever the token opens it.
   */
  create(x: Exchange) {
    const body = parseInput(createStreamTokenBody, x.body ? JSON.parse(x.body.toString('utf8')) : {});
    const { patterns, problem } = streamPatterns(body.types);
    if (problem !== null) throw new ApiError('parameter_invalid', problem, 'types');
    const unreadable = unreadablePattern(patterns, x.auth!.claims);
    if (unreadable !== null) throw new ApiError('insufficient_permissions', unreadable, 'types');
    const keyHash = this.sessionIssuer(x) ?? hashKey(x.req.headers.authorization!.slice('Bearer '.length));
    const expiresAtMs = Date.now() + this.ttlMs;
    const token = this.seal({ keyHash, types: body.types === undefined ? null : patterns.join(','), expiresAtMs });
    return { object: 'stream_token' as const, token, expiresAt: new Date(expiresAtMs).toISOString(), types: patterns };
  }

  /** A token's issuer again (an open stream's check): its key or session, or the 401 it now gets. */
  issuer = (claims: StreamTokenClaims): Promise<ResolvedKey> => this.resolver.authenticateHash(claims.keyHash);

  /** The issuing key of a `?token=`: 401 `invalid_api_key` (bad token, revoked key) or `key_expired` (param `token`). */
  async authenticate(token: string): Promise<{ auth: ResolvedKey; claims: StreamTokenClaims }> {
    const claims = this.open(token);
    if (!claims) throw new ApiError('invalid_api_key', 'Invalid stream token.', 'token');
    if (claims.expiresAtMs <= Date.now()) {
      throw new ApiError('key_expired', 'This stream token has expired; create a new one (POST /teams/{teamId}/events/stream-tokens).', 'token');
    }
    return { auth: await this.issuer(claims), claims };
  }
}

/** `?token=` of a query string, or null. */
export function tokenParam(query: string): string | null {
  if (!query.includes('token=')) return null;
  return new URLSearchParams(query.slice(1)).get('token');
}

/**
 * The stream's query as the service gets it: without the token, and with the token's patterns (a
 * `types` beside a token that binds some is refused rather than silently replaced).
 */
export function upstreamStreamQuery(x: Exchange): string {
  if (!x.streamToken) return x.query;
  const params = new URLSearchParams(x.query.slice(1));
  params.delete('token');
  if (x.streamToken.types !== null) {
    if (params.has('types')) throw new ApiError('parameter_invalid', 'This stream token carries its own types; leave types out of the URL.', 'types');
    params.set('types', x.streamToken.types);
  }
  const query = params.toString();
  return query ? `?${query}` : '';
}
