import type { InboundEmailView } from '@helpdesk/contracts';
import type { Scope } from '@helpdesk/kit';
import { replyAddress, teamAddress } from './addresses';
import type { InboundSecretDoc } from './model';

/** The partition's addresses and the webhook secret's state (never the secret). */
export function inboundEmailView(s: Scope, domain: string, row: InboundSecretDoc | null, now = new Date()): InboundEmailView {
  const grace = row?.previousValidUntil && row.previousValidUntil > now ? row.previousValidUntil.toISOString() : null;
  return {
    object: 'inbound_email',
    address: teamAddress(s, domain),
    replyAddressTemplate: replyAddress(s, '{ticketId}', domain),
    webhookPath: `/inbound-email/${s.teamId}/messages`,
    secret: row ? { hint: row.hint, createdAt: row.createdAt.toISOString(), previousValidUntil: grace } : null,
  };
}
