import type { Scope } from '@helpdesk/kit';

/**
 * The platform's mail addresses and Message-IDs (docs/adr/0041). A partition's address is
 * `<teamId>@<domain>` (live) or `<teamId>.test@<domain>`; `+<ticketId>` after it is the ticket's
 * reply address. Our replies' Message-IDs are `<msg_….tkt_…@<domain>>`, so a customer's answer to
 * one names its ticket even when the mail client drops the reply address.
 */

const LOCAL_RE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(\.test)?(?:\+(tkt_[A-Za-z0-9]{8,64}))?$/i;
const OUR_MESSAGE_ID_RE = /^(msg_[A-Za-z0-9]{8,64})\.(tkt_[A-Za-z0-9]{8,64})@(.+)$/;

const localOf = (s: Scope) => `${s.teamId}${s.mode === 'test' ? '.test' : ''}`;

export const teamAddress = (s: Scope, domain: string) => `${localOf(s)}@${domain}`;
export const replyAddress = (s: Scope, ticketId: string, domain: string) => `${localOf(s)}+${ticketId}@${domain}`;

/** A recipient of ours: the partition it reaches, and the ticket when it is a reply address; null: not ours. */
export function routeOf(address: string, domain: string): (Scope & { ticketId: string | null }) | null {
  const at = address.lastIndexOf('@');
  if (at < 1 || address.slice(at + 1).toLowerCase() !== domain.toLowerCase()) return null;
  const m = LOCAL_RE.exec(address.slice(0, at));
  if (!m) return null;
  return { teamId: m[1].toLowerCase(), mode: m[2] ? 'test' : 'live', ticketId: m[3] ?? null };
}

/** `<id>` → `id`, lowercase (Message-IDs compare case-insensitively in practice). */
export const bareMessageId = (id: string) => id.trim().replace(/^<|>$/g, '').toLowerCase();

/** The Message-ID of our mail of message `messageId` on `ticketId`. */
export const outgoingMessageId = (messageId: string, ticketId: string, domain: string) => `<${messageId}.${ticketId}@${domain}>`;

/** The ticket named by one of our Message-IDs (case kept: ids are case-sensitive); null: not one of ours. */
export function ticketOfOurMessageId(id: string, domain: string): string | null {
  const m = OUR_MESSAGE_ID_RE.exec(id.trim().replace(/^<|>$/g, ''));
  return m && m[3].toLowerCase() === domain.toLowerCase() ? m[2] : null;
}
