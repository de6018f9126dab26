import { z } from 'zod';
import { defineOperations } from '../operation';

/**
 * Email in and out (docs/adr/0041), owned by ticketing: the team's inbound addresses and the per-team
 * secret that authenticates a mail provider's inbound webhook, plus the internal operation the
 * notifications service asks for a reply's threading headers.
 */

/** The secret's prefix names its partition: `ies_test_…` / `ies_live_…`. */
export const INBOUND_SECRET_RE = /^ies_(test|live)_[A-Za-z0-9_-]{32,64}$/;
/** How long a rotated-out secret keeps working, so a provider's configuration can be changed without losing mail. */
export const INBOUND_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

const secretStateSchema = z.object({
  /** The secret's last 4 characters. */
  hint: z.string(),
  createdAt: z.string(),
  /** While set and in the future, the previous secret still works too (a rotation's grace period). */
  previousValidUntil: z.string().nullable(),
});

export const inboundEmailSchema = z
  .object({
    object: z.literal('inbound_email'),
    /** Mail to this address (the SMTP listener) opens and continues this partition's tickets. */
    address: z.string(),
    /** Replies to a ticket are asked to go to `<local>+<ticketId>@<domain>`: this is `address` with `{ticketId}` in it. */
    replyAddressTemplate: z.string(),
    /** Where a provider's inbound webhook posts raw MIME (on the inbound mail listener, not under /api/v1). */
    webhookPath: z.string(),
    /** The webhook secret's state; null: none yet (the webhook refuses every post). */
    secret: secretStateSchema.nullable(),
  })
  .meta({ id: 'InboundEmail' });
export type InboundEmailView = z.output<typeof inboundEmailSchema>;

export const inboundEmailSecretSchema = z
  .object({
    object: z.literal('inbound_email_secret'),
    /** Shown once: only its hash is stored. */
    secret: z.string(),
    hint: z.string(),
    createdAt: z.string(),
    previousValidUntil: z.string().nullable(),
  })
  .meta({ id: 'InboundEmailSecret' });

/** What a reply mail needs to be threaded into the customer's conversation. */
export const emailReplyThreadSchema = z.object({
  ticketId: z.string(),
  to: z.string(),
  toName: z.string().nullable(),
  /** The team's name and support address (workspace settings' supportEmail; the team's inbound address when unset). */
  fromName: z.string().nullable(),
  fromAddress: z.string(),
  /** The per-ticket reply address: a reply continues the ticket even without In-Reply-To. */
  replyTo: z.string(),
  subject: z.string(),
  /** The reply's own Message-ID (`<msg_….tkt_…@domain>`), so a later answer to it finds the ticket. */
  messageId: z.string(),
  inReplyTo: z.string().nullable(),
  references: z.array(z.string()),
});
export type EmailReplyThread = z.output<typeof emailReplyThreadSchema>;

const inbound = { service: 'ticketing', tag: 'Inbound email', keys: 'staff' } as const;

export const INBOUND_EMAIL = defineOperations({
  getInboundEmail: {
    ...inbound,
    method: 'GET',
    path: '/teams/{teamId}/inbound-email',
    summary: "The partition's inbound email addresses and webhook secret state",
    description:
      'Mail sent (or forwarded, or routed by MX) to `address` becomes tickets with channel `email`; a reply continues its ticket ' +
      '(In-Reply-To/References, or the per-ticket reply address). A mail provider\'s inbound webhook posts raw MIME to `webhookPath` on the ' +
      'inbound mail listener, authenticated by the secret (docs/adr/0041). Needs `manage_settings`.',
    permission: 'manage_settings',
    params: { teamId: 'team' },
    success: { status: 200, data: inboundEmailSchema, shape: 'envelope' },
    errors: [],
  },
  rotateInboundEmailSecret: {
    ...inbound,
    keys: 'secret',
    method: 'POST',
    path: '/teams/{teamId}/inbound-email/secret',
    summary: 'Create or rotate the inbound webhook secret',
    description:
      'Answers a new secret once (only its hash is kept). The previous secret keeps working for 24 hours, so the provider\'s ' +
      'configuration can be changed without losing mail; rotating again ends that grace at once. Emits `inbound_email.secret_rotated` (the hint, ' +
      'never the secret). Needs `manage_settings` and a secret key.',
    permission: 'manage_settings',
    params: { teamId: 'team' },
    success: { status: 201, data: inboundEmailSecretSchema, shape: 'envelope' },
    errors: ['idempotency_key_in_use'],
  },
  revokeInboundEmailSecret: {
    ...inbound,
    keys: 'secret',
    method: 'DELETE',
    path: '/teams/{teamId}/inbound-email/secret',
    summary: 'Revoke the inbound webhook secret',
    description: 'The current and any previous secret stop working at once (a leaked secret); emits `inbound_email.secret_revoked`. 404 when there is none.',
    permission: 'manage_settings',
    params: { teamId: 'team' },
    success: { status: 200, data: z.object({ deleted: z.literal(true) }), shape: 'envelope' },
    errors: ['resource_not_found'],
  },
});

/** Asked by the notifications service when an agent's public reply on an email ticket is mailed. */
export const INBOUND_EMAIL_INTERNAL = defineOperations({
  getEmailReplyThread: {
    ...inbound,
    internal: true,
    keys: 'secret',
    method: 'GET',
    path: '/internal/email-threads/{ticketId}',
    summary: "A reply's recipient, sender and threading headers (404: not an email ticket, or no customer email)",
    permission: null,
    params: { ticketId: 'ticket' },
    query: z.strictObject({ messageId: z.string().min(1).max(100) }),
    success: { status: 200, data: emailReplyThreadSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
});
