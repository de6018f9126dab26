import type { SignInLinkSnapshot } from '@helpdesk/contracts';
import type { Unscoped } from '@helpdesk/kit';
import type { SignInLinkDoc } from './model';

/** A link as its event carries it: never its token nor the token's hash. */
export const signInLinkSnapshot = (l: Unscoped<SignInLinkDoc>): SignInLinkSnapshot => ({
  id: l._id,
  memberId: l.memberId,
  email: l.email,
  delivery: l.delivery,
  expiresAt: l.expiresAt.toISOString(),
  createdAt: l.createdAt.toISOString(),
});
