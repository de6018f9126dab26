import { z } from 'zod';
import { charLength, nameField } from '../../fields';
import { defineOperations } from '../operation';
import { EMAIL_MAX } from '../customers/customers';

/**
 * The chat widget's public conversation endpoints (docs/adr/0040). A visitor's page holds the team's
 * publishable key (never a secret key: `keys: 'visitor'`); a conversation is one ticket (channel
 * `widget`) seen through its visitor's eyes, reached with the conversation token its start answered.
 * The gateway limits the page's origin to the widget settings' `allowedOrigins` and each visitor's
 * rate (gateway/src/widget.ts).
 */

/** What a visitor may send in one message, and the widget's request bodies' bound in bytes (413 above it). */
export const WIDGET_CONTENT_MAX = 5_000;
export const WIDGET_BODY_LIMIT_BYTES = 32 * 1024;
/** A conversation token: `wct_` and 43 base64url characters (32 random bytes); stored hashed. */
export const CONVERSATION_TOKEN_RE = /^wct_[A-Za-z0-9_-]{43}$/;
/** The per-visitor limits the gateway applies to the widget's endpoints, beside the key's own: per conversation token, and per address (and team) for requests without one (visitors behind one address share it). */
export const WIDGET_VISITOR_PER_MINUTE = 20;
export const WIDGET_ADDRESS_PER_MINUTE = 60;
/** A subject or first line longer than the ticket title's 255 characters is cut to fit (the spec). */
export const WIDGET_TITLE_MAX = 255;

/** `s` cut to at most `max` characters (code points), ending with an ellipsis when cut. */
export function shortenTitle(s: string, max = WIDGET_TITLE_MAX): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  if (charLength(flat) <= max) return flat;
  return [...flat].slice(0, max - 1).join('').trimEnd() + '…';
}

const contentField = z
  .string()
  .refine((s) => s.trim().length > 0, { message: 'must not be empty' })
  .refine((s) => charLength(s) <= WIDGET_CONTENT_MAX, { message: `must be at most ${WIDGET_CONTENT_MAX} characters` })
  .meta({ maxLength: WIDGET_CONTENT_MAX });

export const startWidgetConversationBody = z.strictObject({
  name: nameField(),
  email: z.email().max(EMAIL_MAX),
  /** The first message. */
  message: contentField,
  /** Optional; shortened to 255 characters. Absent: the message's first line, shortened. */
  subject: z.string().max(10_000).optional(),
});
export type StartWidgetConversationInput = z.output<typeof startWidgetConversationBody>;

export const addWidgetMessageBody = z.strictObject({ content: contentField });
export type AddWidgetMessageInput = z.output<typeof addWidgetMessageBody>;

/** The code mailed to a widget sign-up with an unconfirmed email: 8 letters and digits (case and spaces ignored). */
export const CONFIRMATION_CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export const CONFIRMATION_CODE_LENGTH = 8;
/** Wrong codes a confirmation takes before it is spent (a new conversation mails a new code). */
export const CONFIRMATION_ATTEMPTS_MAX = 5;
export const confirmWidgetEmailBody = z.strictObject({ code: z.string().min(1).max(32) });
export const widgetConfirmationSchema = z
  .object({ object: z.literal('widget_confirmation'), confirmed: z.literal(true), customer: z.object({ name: z.string(), email: z.string() }) })
  .meta({ id: 'WidgetConfirmation' });

const conversationTokenField = z
  .string()
  .regex(CONVERSATION_TOKEN_RE, { message: 'must be the conversation token (wct_…) the conversation was started with' });
export const widgetConversationQuery = z.strictObject({ conversationToken: conversationTokenField });
export const widgetStreamQuery = z.strictObject({
  conversationToken: conversationTokenField,
  lastEventId: z.string().regex(/^\d{1,20}-\d{1,20}$/, { message: "must be a stream id (<ms>-<seq>) from a frame's id: line" }).optional(),
});

/** One message as its visitor sees it: public messages only, nothing of staff data. */
export const widgetMessageSchema = z
  .object({
    id: z.string(),
    sender: z.enum(['customer', 'agent', 'system', 'ai']),
    senderName: z.string().nullable(),
    content: z.string(),
    createdAt: z.string(),
  })
  .meta({ id: 'WidgetMessage' });
export type WidgetMessage = z.output<typeof widgetMessageSchema>;

export const widgetConversationSchema = z
  .object({
    object: z.literal('widget_conversation'),
    /** The ticket's id. */
    id: z.string(),
    title: z.string(),
    status: z.string(),
    customer: z.object({ name: z.string(), email: z.string() }),
    /** True while the visitor's email waits for its confirmation code (a `pending` customer was signed up). */
    awaitingEmailConfirmation: z.boolean(),
    messages: z.array(widgetMessageSchema),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'WidgetConversation' });
export type WidgetConversation = z.output<typeof widgetConversationSchema>;

export const startedWidgetConversationSchema = widgetConversationSchema
  .extend({
    /** Shown once: the key to this conversation (keep it, e.g. in localStorage). */
    conversationToken: z.string(),
  })
  .meta({ id: 'StartedWidgetConversation' });

/** The widget's public settings as a page may read them (no allowedOrigins). */
export const widgetConfigSchema = z
  .object({ object: z.literal('widget_config'), teamId: z.string(), position: z.string(), primaryColor: z.string(), greeting: z.string() })
  .meta({ id: 'WidgetConfig' });

export const widgetOperation = { tag: 'Widget', keys: 'visitor', permission: null, bodyLimitBytes: WIDGET_BODY_LIMIT_BYTES } as const;
export const widgetConversationParams = { teamId: 'team', conversationId: 'ticket' } as const;

export const WIDGET_RULES_DOC =
  'Publishable key only (a secret key: 403 `secret_key_forbidden`); from a browser, the page\'s origin must be in the widget ' +
  'settings\' `allowedOrigins` (empty: any origin), otherwise 403 `origin_not_allowed` and no CORS headers, preflight included. ' +
  `Each visitor is also limited beside the key's limit: ${WIDGET_VISITOR_PER_MINUTE} requests a minute per conversation token, ` +
  `${WIDGET_ADDRESS_PER_MINUTE} per address for requests without one (429 \`rate_limit_exceeded\`). Bodies over ${WIDGET_BODY_LIMIT_BYTES / 1024} KiB: 413 ` +
  `\`parameter_invalid\`; a message over ${WIDGET_CONTENT_MAX} characters: 400 \`parameter_invalid\`.`;
export const WIDGET_TOKEN_RULE_DOC =
  ' `conversationToken` (query) is the token the conversation was started with: absent or malformed is 400 (param ' +
  '`conversationToken`); one that is not this conversation\'s (another visitor\'s) is 404 `resource_not_found` (param `conversationToken`).';


export const WIDGET = defineOperations({
  startWidgetConversation: {
    ...widgetOperation,
    service: 'ticketing',
    method: 'POST',
    path: '/teams/{teamId}/widget/conversations',
    summary: 'Start a conversation (a visitor writes for the first time)',
    description:
      'Opens a ticket with channel `widget`: its title is `subject` (or the message\'s first line) shortened to 255 characters, its ' +
      'first message the visitor\'s `message` (sender `customer`). The customer is found by `email` (case-insensitive) or created ' +
      'with status `pending`; a pending customer is sent a confirmation email, and confirming makes them `active`. Answers the ' +
      'conversation as its visitor sees it and its `conversationToken` (shown once). ' +
      WIDGET_RULES_DOC,
    params: { teamId: 'team' },
    body: startWidgetConversationBody,
    success: { status: 201, data: startedWidgetConversationSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json'],
  },
  getWidgetConversation: {
    ...widgetOperation,
    service: 'ticketing',
    method: 'GET',
    path: '/teams/{teamId}/widget/conversations/{conversationId}',
    summary: 'The visitor\'s conversation and its public messages',
    description: `Public messages only, oldest first (internal notes never). Exactly the fields of WidgetConversation.${WIDGET_TOKEN_RULE_DOC} ${WIDGET_RULES_DOC}`,
    params: widgetConversationParams,
    query: widgetConversationQuery,
    success: { status: 200, data: widgetConversationSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'resource_not_found'],
  },
  addWidgetMessage: {
    ...widgetOperation,
    service: 'ticketing',
    method: 'POST',
    path: '/teams/{teamId}/widget/conversations/{conversationId}/messages',
    summary: 'The visitor writes again (continues the same ticket)',
    description: `Adds a customer message to the conversation's ticket (\`ticket.message_added\`).${WIDGET_TOKEN_RULE_DOC} ${WIDGET_RULES_DOC}`,
    params: widgetConversationParams,
    query: widgetConversationQuery,
    body: addWidgetMessageBody,
    success: { status: 201, data: widgetMessageSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found'],
  },
});

/** The visitor's email confirmation: answered by ticketing, which asks the customers service (CUSTOMERS_WIDGET_INTERNAL). */
export const WIDGET_CONFIRMATION = defineOperations({
  confirmWidgetEmail: {
    ...widgetOperation,
    service: 'ticketing',
    method: 'POST',
    path: '/teams/{teamId}/widget/conversations/{conversationId}/confirmation',
    summary: 'Confirm the visitor\'s email with the code mailed to it (a pending customer becomes active)',
    description:
      'A conversation started with an email no customer had signs up a `pending` customer and mails a code of 8 letters and digits ' +
      '(valid 24 hours) to that email; the visitor types it into the widget. The right code makes the customer `active` (their first ' +
      'confirmed sign-in) and the conversation\'s `awaitingEmailConfirmation` false. A wrong or expired code is 400 `parameter_invalid` ' +
      `(param \`code\`); after ${CONFIRMATION_ATTEMPTS_MAX} wrong codes the code is spent (a new conversation mails a new one). Nothing to ` +
      'confirm (the customer was known, or is confirmed already): 400 `parameter_invalid` (param `code`).' +
      WIDGET_TOKEN_RULE_DOC +
      ' ' +
      WIDGET_RULES_DOC,
    params: widgetConversationParams,
    query: widgetConversationQuery,
    body: confirmWidgetEmailBody,
    success: { status: 200, data: widgetConfirmationSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found'],
  },
});

/** Asked by the notifications service when a visitor opens the conversation's stream. */
export const WIDGET_INTERNAL = defineOperations({
  verifyWidgetConversation: {
    service: 'ticketing',
    tag: 'Widget',
    keys: 'visitor',
    internal: true,
    method: 'GET',
    path: '/internal/widget/conversations/{conversationId}',
    summary: 'The conversation this token opens (404 when it opens none)',
    permission: null,
    params: { conversationId: 'ticket' },
    query: widgetConversationQuery,
    success: { status: 200, data: z.object({ conversationId: z.string() }), shape: 'envelope' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },
});
