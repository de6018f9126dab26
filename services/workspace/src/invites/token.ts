import { createHash } from 'node:crypto';
import { INVITE_TOKEN_RE } from '@helpdesk/contracts';
import { randomBase62 } from '@helpdesk/kit';

/**
 * The single-use token of an invitation link: `hdinv_` + the team's UUID without dashes + `_` + 40
 * random base62 characters (~238 bits). The team part lets the keyless accept call find the team
 * before any look-up; only the sha256 of the whole token is stored (docs/adr/0013).
 */
export function newInviteToken(teamId: string): { token: string; hash: string } {
  const token = `hdinv_${teamId.replace(/-/g, '').toLowerCase()}_${randomBase62(40)}`;
  return { token, hash: hashInviteToken(token) };
}

export const hashInviteToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** The team a token names, or null when it is not an invite token at all. */
export function teamOfInviteToken(token: string): string | null {
  const m = INVITE_TOKEN_RE.exec(token);
  if (!m) return null;
  const h = m[1];
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
