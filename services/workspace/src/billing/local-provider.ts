import { createHash, randomBytes } from 'node:crypto';
import { scopedCollection, type Collection } from '@helpdesk/kit';
import type { PortalSessionModel } from './model';
import type { BillingProvider } from './provider';

/** How long a local portal page works after `POST /billing/portal` (about as long as Stripe's). */
export const PORTAL_SESSION_TTL_MS = 60 * 60 * 1000;

export const hashPortalSession = (session: string) => createHash('sha256').update(session).digest('hex');

/**
 * The default provider: no payment at all, a page served by the platform (the gateway's
 * `/billing/portal/{teamId}/{session}`, gateway/src/billing-pages.ts) where a plan is chosen or the
 * subscription cancelled. The session secret is in the URL; only its hash is stored.
 */
export function localBillingProvider(opts: { sessions: Collection<'team-wide', PortalSessionModel>; portalBaseUrl: string }): BillingProvider {
  return {
    name: 'local',
    async openPortal({ teamId, returnUrl }) {
      const session = `bps_${randomBytes(32).toString('base64url')}`;
      const now = new Date();
      await scopedCollection(opts.sessions, { teamId }).create({
        _id: hashPortalSession(session),
        returnUrl,
        expiresAt: new Date(now.getTime() + PORTAL_SESSION_TTL_MS),
        createdAt: now,
      });
      return { url: `${opts.portalBaseUrl.replace(/\/+$/, '')}/${teamId}/${session}` };
    },
  };
}
