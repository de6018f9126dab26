import { createHash } from 'node:crypto';
import { randomBase62 } from '@helpdesk/kit';

/**
 * A sign-in link's single-use token: `hdsil_` + the team's UUID without dashes + `_` + 40 random
 * base62 characters (~238 bits; SIGN_IN_TOKEN_RE). The team part lets the keyless sign-in find the
 * team before any look-up; only the sha256 of the whole token is stored (docs/adr/0068).
 */
export function newSignInToken(teamId: string): { token: string; hash: string } {
  const token = `hdsil_${teamId.replace(/-/g, '').toLowerCase()}_${randomBase62(40)}`;
  return { token, hash: sha256Hex(token) };
}

export const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');
