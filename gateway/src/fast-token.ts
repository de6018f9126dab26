import type { InternalTokens, KeyClaims } from '@helpdesk/kit';

export type { KeyClaims };

/**
 * The internal token of one proxied request. The request id travels in its own header
 * (`x-svc-request-id`, set by the proxy), so every request of a key shares one token, minted per
 * exact claims and renewed at half its lifetime (kit's InternalTokens.mintForKey, docs/adr/0019):
 * a service verifies it once, not per request.
 */
export type TokenMinter = (claims: KeyClaims, requestId: string) => string;

export const tokenMinter = (tokens: InternalTokens): TokenMinter => (claims) => tokens.mintForKey(claims);
