import { SignJWT, jwtVerify } from 'jose';
import {
  internalClaimsSchema,
  INTERNAL_TOKEN_AUDIENCE,
  INTERNAL_TOKEN_ISSUER,
  type InternalClaims,
} from '@helpdesk/contracts';

/**
 * The gateway mints a short-lived HS256 JWT per proxied request; services verify it and refuse a
 * request without a valid one (they never trust a bare header). The key is INTERNAL_TOKEN_SECRET.
 */
export class InternalTokens {
  private readonly key: Uint8Array;
  constructor(secret: string, private readonly ttlSeconds = 60) {
    if (secret.length < 32) throw new Error('INTERNAL_TOKEN_SECRET must be at least 32 characters');
    this.key = new TextEncoder().encode(secret);
  }

  sign(claims: InternalClaims): Promise<string> {
    return new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(INTERNAL_TOKEN_ISSUER)
      .setAudience(INTERNAL_TOKEN_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(`${this.ttlSeconds}s`)
      .sign(this.key);
  }

  /** Resolves the claims, or rejects when the token is missing, forged, expired or malformed. */
  async verify(token: string): Promise<InternalClaims> {
    const { payload } = await jwtVerify(token, this.key, {
      issuer: INTERNAL_TOKEN_ISSUER,
      audience: INTERNAL_TOKEN_AUDIENCE,
      algorithms: ['HS256'],
    });
    return internalClaimsSchema.parse(payload);
  }
}
