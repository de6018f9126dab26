import type { InternalTokens, KeyClaims } from '@helpdesk/kit';

export type { KeyClaims };

/** Mints the internal token of one proxied request (kit's InternalTokens.mint: a plain HMAC, a few µs). */
export type TokenMinter = (claims: KeyClaims, requestId: string) => string;

export const tokenMinter = (tokens: InternalTokens): TokenMinter => (claims, requestId) => tokens.mint(claims, requestId);
