import { z } from 'zod';
import { partitionSchema } from '../partition';
import { changeFields, iso } from './common';
import type { CatalogEntry } from './read';
import { PERMISSIONS, ROLES } from '../permissions';

/**
 * The workspace service's events (type → {version, data schema}), spread into EVENT_CATALOG in ../events.ts.
 * Snapshot schemas the events carry live here too, so that each service's events sit in one file.
 * Members, invites and settings are per team (docs/adr/0012): `mode` on these events is the
 * partition of the key that made the change, not a partition of the data.
 */

export const memberSnapshotSchema = z.object({
  id: z.string(),
  userId: z.string(),
  name: z.string(),
  email: z.string(),
  avatarUrl: z.string().nullable(),
  role: z.enum(ROLES),
  roleDisplayName: z.string(),
  permissions: z.array(z.enum(PERMISSIONS)),
  level: z.number().int(),
  xp: z.number().int(),
  joinedAt: iso,
});
export type MemberSnapshot = z.infer<typeof memberSnapshotSchema>;

export const INVITE_STATUSES = ['pending', 'accepted', 'revoked', 'expired'] as const;
/** The invitation message's outcome, as its sender (the notifications service) reports it. */
export const INVITE_MESSAGE_STATUSES = ['queued', 'sent', 'failed'] as const;
export const inviteMessageSchema = z.object({ status: z.enum(INVITE_MESSAGE_STATUSES), at: iso.nullable(), error: z.string().nullable() });
export const inviteSnapshotSchema = z.object({
  id: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
  status: z.enum(INVITE_STATUSES),
  invitedBy: z.string().nullable(),
  message: inviteMessageSchema,
  expiresAt: iso,
  createdAt: iso,
});
export type InviteSnapshot = z.infer<typeof inviteSnapshotSchema>;

export const memberPreferencesSchema = z.object({ boringMode: z.boolean() });

/** The team's game switches (docs/adr/0014): every one defaults to true. */
export const FEATURE_FLAGS = [
  'bossBattlesEnabled',
  'achievementsEnabled',
  'questsEnabled',
  'leaderboardsEnabled',
  'puzzlesEnabled',
  'socialEnabled',
  'cosmeticsEnabled',
  'seasonsEnabled',
  'skillTreesEnabled',
] as const;
export type FeatureFlag = (typeof FEATURE_FLAGS)[number];
export const featureFlagsSchema = z.object(Object.fromEntries(FEATURE_FLAGS.map((f) => [f, z.boolean()])) as Record<FeatureFlag, z.ZodBoolean>);

export const settingsSnapshotSchema = z.object({
  teamName: z.string(),
  teamSlug: z.string(),
  defaultTimezone: z.string(),
  defaultLanguage: z.string(),
  supportEmail: z.string().nullable(),
  autoCloseResolvedAfterDays: z.number().int().nullable(),
});

export const ticketStatusConfigSchema = z.object({
  key: z.string(),
  label: z.string(),
  color: z.string(),
  position: z.number().int(),
  isProtected: z.boolean(),
});

export const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
export const daySlotSchema = z.object({ enabled: z.boolean(), start: z.string(), end: z.string() });
export const holidaySchema = z.object({ date: z.string(), name: z.string().nullable() });
export const businessHoursSnapshotSchema = z.object({
  enabled: z.boolean(),
  timezone: z.string(),
  schedule: z.object(Object.fromEntries(WEEKDAYS.map((d) => [d, daySlotSchema])) as Record<(typeof WEEKDAYS)[number], typeof daySlotSchema>),
  holidays: z.array(holidaySchema),
});

export const WIDGET_POSITIONS = ['bottom-right', 'bottom-left', 'top-right', 'top-left'] as const;
export const widgetSnapshotSchema = z.object({
  position: z.enum(WIDGET_POSITIONS),
  primaryColor: z.string(),
  greeting: z.string(),
  allowedOrigins: z.array(z.string()),
});

/** An API key as events carry it (never the key): the gateway owns keys, workspace emits for it. */
export const apiKeySnapshotSchema = z.object({
  id: z.string(),
  prefix: z.string(),
  type: z.enum(['secret', 'publishable']),
  mode: partitionSchema,
  name: z.string().nullable(),
  scopes: z.array(z.enum(PERMISSIONS)).nullable(),
  memberId: z.string().nullable(),
  createdAt: iso,
  expiresAt: iso.nullable(),
  revokedAt: iso.nullable(),
});
export type ApiKeySnapshot = z.infer<typeof apiKeySnapshotSchema>;

// ---------- custom fields ----------

export const CUSTOM_FIELD_CONTENT_TYPES = ['ticket', 'customer', 'article'] as const;
export type CustomFieldContentType = (typeof CUSTOM_FIELD_CONTENT_TYPES)[number];
export const CUSTOM_FIELD_TYPES = ['text', 'number', 'date', 'select', 'checkbox'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];
/** A `text` value's length bound, in characters. */
export const CUSTOM_FIELD_TEXT_MAX = 1_000;

/** A custom field definition, as the API answers it and events carry it (docs/adr/0022). */
export const customFieldSnapshotSchema = z.object({
  id: z.string(),
  object: z.literal('custom_field'),
  contentType: z.enum(CUSTOM_FIELD_CONTENT_TYPES),
  label: z.string(),
  fieldType: z.enum(CUSTOM_FIELD_TYPES),
  defaultValue: z.union([z.string(), z.number(), z.boolean()]).nullable(),
  options: z.array(z.string()).nullable(),
  minValue: z.number().nullable(),
  maxValue: z.number().nullable(),
  required: z.boolean(),
  sortOrder: z.number().int(),
  createdAt: iso,
});
export type CustomFieldSnapshot = z.infer<typeof customFieldSnapshotSchema>;
/** What a record's owner needs of a definition to check a value. */
export type CustomFieldRule = Pick<CustomFieldSnapshot, 'id' | 'fieldType' | 'options' | 'minValue' | 'maxValue' | 'required' | 'defaultValue'>;

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const isCalendarDate = (v: string) => {
  const m = DATE_RE.exec(v);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!));
  return d.getUTCFullYear() === +m[1]! && d.getUTCMonth() === +m[2]! - 1 && d.getUTCDate() === +m[3]!;
};

/** Why `value` does not fit the definition (a sentence ending without a period), or null when it does. */
export function customFieldValueProblem(def: Omit<CustomFieldRule, 'id' | 'required' | 'defaultValue'>, value: unknown): string | null {
  switch (def.fieldType) {
    case 'text':
      return typeof value === 'string' && [...value].length <= CUSTOM_FIELD_TEXT_MAX ? null : `must be a string of at most ${CUSTOM_FIELD_TEXT_MAX} characters`;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      if (def.minValue !== null && value < def.minValue) return `must be at least ${def.minValue}`;
      if (def.maxValue !== null && value > def.maxValue) return `must be at most ${def.maxValue}`;
      return null;
    case 'date':
      return typeof value === 'string' && isCalendarDate(value) ? null : 'must be a date YYYY-MM-DD';
    case 'select':
      return typeof value === 'string' && (def.options ?? []).includes(value) ? null : `must be one of: ${(def.options ?? []).join(', ')}`;
    case 'checkbox':
      return typeof value === 'boolean' ? null : 'must be a boolean';
  }
}

/**
 * A record's `customFields` after a write, checked against its type's definitions (docs/adr/0022).
 * `current` is null on create (every default applies) and the stored values on update (`given` is
 * merged into them; null removes a value). Values of fields no longer defined are dropped. A required
 * field left without a value takes its default, or the write is refused. The first problem names
 * its param `customFields.<fieldId>`.
 */
export function resolveCustomFieldValues(
  defs: CustomFieldRule[],
  given: Record<string, unknown> | undefined,
  current: Record<string, unknown> | null,
): { values: Record<string, unknown> } | { param: string; message: string } {
  const byId = new Map(defs.map((d) => [d.id, d]));
  for (const [id, value] of Object.entries(given ?? {})) {
    const def = byId.get(id);
    if (!def) return { param: `customFields.${id}`, message: `No custom field ${id} is defined for this record type` };
    if (value === null) {
      if (def.required && def.defaultValue === null) return { param: `customFields.${id}`, message: `${id} is required and cannot be removed` };
      continue;
    }
    const problem = customFieldValueProblem(def, value);
    if (problem) return { param: `customFields.${id}`, message: `Invalid custom field ${id}: ${problem}` };
  }
  const values: Record<string, unknown> = {};
  for (const def of defs) {
    const g = given?.[def.id];
    const value = g !== undefined ? g : current ? current[def.id] : undefined;
    if (value !== undefined && value !== null) values[def.id] = value;
    else if (def.defaultValue !== null && (def.required || (current === null && g === undefined))) values[def.id] = def.defaultValue;
    else if (def.required) return { param: `customFields.${def.id}`, message: `Missing required custom field ${def.id}` };
  }
  return { values };
}

// ---------- billing ----------

/** A team's subscription states (Stripe's names; the gateway's `subscriptionStatus` in whoami). */
export const SUBSCRIPTION_STATUSES = ['active', 'trialing', 'past_due', 'canceled', 'unpaid'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
/** The plans a team can choose (docs/adr/0024); `free` is every team's plan until it chooses one. */
export const BILLING_PLANS = ['free', 'team', 'business'] as const;
export type BillingPlan = (typeof BILLING_PLANS)[number];

/** The team's subscription, as the API answers it and `billing.subscription_updated` carries it. */
export const subscriptionSnapshotSchema = z.object({
  object: z.literal('subscription'),
  status: z.enum(SUBSCRIPTION_STATUSES),
  plan: z.enum(BILLING_PLANS),
  memberCount: z.number().int(),
  currentPeriodEnd: iso.nullable(),
  cancelAtPeriodEnd: z.boolean(),
});
export type SubscriptionSnapshot = z.infer<typeof subscriptionSnapshotSchema>;

/**
 * An API key's events (docs/adr/0066), read as `GET /api-keys` reads keys (docs/adr/0013): the key's own
 * member sees them, any other key needs `manage_members`.
 */
const apiKeyRead = { permission: 'manage_members', member: (d: { apiKey: ApiKeySnapshot }) => d.apiKey.memberId } as const;

export const WORKSPACE_EVENTS = {
  'member.joined': {
    version: 1, read: { op: 'getMember' },
    data: z.object({
      member: memberSnapshotSchema,
      via: z.enum(['team_created', 'invite']),
      inviteId: z.string().nullable(),
      /** The team's name and slug as the team was created (`via: team_created`; absent otherwise, and in events from before it). */
      team: z.object({ name: z.string(), slug: z.string() }).optional(),
    }),
  },
  'member.role_changed': { version: 1, read: { op: 'getMember' }, data: z.object({ member: memberSnapshotSchema, previousRole: z.enum(ROLES) }) },
  'member.removed': { version: 1, read: { op: 'getMember' }, data: z.object({ memberId: z.string(), member: memberSnapshotSchema }) },
  'member.preferences_updated': { version: 1, read: { op: 'getMemberPreferences' }, data: z.object({ memberId: z.string(), preferences: memberPreferencesSchema, ...changeFields }) },
  /**
   * What the notifications service needs to send the invitation: the invite, the team's name and
   * the inviter's. The link is never in an event (events reach webhooks): the sender asks for it
   * with the internal `issueInviteLink` (docs/adr/0013).
   */
  'member.invited': {
    version: 1, read: { op: 'listInvites' },
    data: z.object({ invite: inviteSnapshotSchema, teamName: z.string(), inviterName: z.string().nullable() }),
  },
  'invite.revoked': { version: 1, read: { op: 'listInvites' }, data: z.object({ invite: inviteSnapshotSchema }) },
  'invite.message_recorded': { version: 1, read: { op: 'listInvites' }, data: z.object({ invite: inviteSnapshotSchema }) },
  'invite.accepted': { version: 1, read: { op: 'listInvites' }, data: z.object({ invite: inviteSnapshotSchema, memberId: z.string() }) },
  'settings.updated': { version: 1, read: { op: 'getSettings' }, data: z.object({ settings: settingsSnapshotSchema, ...changeFields }) },
  'feature_flags.updated': { version: 1, read: { op: 'getFeatureFlags' }, data: z.object({ featureFlags: featureFlagsSchema, ...changeFields }) },
  'ticket_status.updated': { version: 1, read: { op: 'listTicketStatuses' }, data: z.object({ status: ticketStatusConfigSchema, ...changeFields }) },
  'business_hours.updated': { version: 1, read: { op: 'getBusinessHours' }, data: z.object({ businessHours: businessHoursSnapshotSchema, ...changeFields }) },
  'widget_settings.updated': { version: 1, read: { op: 'getWidgetSettings' }, data: z.object({ widget: widgetSnapshotSchema, ...changeFields }) },
  'api_key.created': { version: 1, read: apiKeyRead, data: z.object({ apiKey: apiKeySnapshotSchema }) },
  'api_key.revoked': { version: 1, read: apiKeyRead, data: z.object({ apiKey: apiKeySnapshotSchema }) },
  /** `rev` orders a definition's events: a projection never applies an older one over a newer one. */
  'custom_field.created': { version: 1, read: { op: 'getCustomField' }, data: z.object({ customField: customFieldSnapshotSchema, rev: z.number().int() }) },
  'custom_field.updated': { version: 1, read: { op: 'getCustomField' }, data: z.object({ customField: customFieldSnapshotSchema, rev: z.number().int(), ...changeFields }) },
  'custom_field.deleted': { version: 1, read: { op: 'getCustomField' }, data: z.object({ customField: customFieldSnapshotSchema, rev: z.number().int() }) },
  /** The provider changed the team's subscription (a plan chosen, cancelled, a payment failed): docs/adr/0024. */
  'billing.subscription_updated': { version: 1, read: { op: 'getSubscription' }, data: z.object({ subscription: subscriptionSnapshotSchema, ...changeFields }) },
} as const satisfies Record<string, CatalogEntry>;

// ---------- saved views (docs/adr/0035) ----------

/** The saved views' events (type → {version, data schema}), spread into EVENT_CATALOG (docs/adr/0035). */

export const VIEW_ENTITY_TYPES = ['tickets', 'customers', 'articles', 'community_posts'] as const;
export type ViewEntityType = (typeof VIEW_ENTITY_TYPES)[number];
export const SORT_DIRECTIONS = ['asc', 'desc'] as const;

export const savedViewSnapshotSchema = z.object({
  id: z.string(),
  object: z.literal('saved_view'),
  name: z.string(),
  entityType: z.enum(VIEW_ENTITY_TYPES),
  /** The entity list's own filters (validated against them when saved). */
  filters: z.record(z.string(), z.unknown()),
  sortField: z.string(),
  sortDirection: z.enum(SORT_DIRECTIONS),
  visibility: z.enum(['private', 'team']),
  /** Who made it: a member id (`mem_…`), or the key id when the key has no member. A private view is theirs alone. */
  createdBy: z.string(),
  createdAt: iso,
  updatedAt: iso,
});
export type SavedViewSnapshot = z.infer<typeof savedViewSnapshotSchema>;

/** A team view is every key's (`GET /views/{viewId}` needs no permission); a private one its creator's alone (docs/adr/0066). */
const viewRead = {
  op: 'getView',
  member: (d: { view: SavedViewSnapshot }) => (d.view.visibility === 'private' ? d.view.createdBy : null),
} as const;

export const VIEW_EVENTS = {
  'saved_view.created': { version: 1, read: viewRead, data: z.object({ view: savedViewSnapshotSchema }) },
  'saved_view.updated': { version: 1, read: viewRead, data: z.object({ view: savedViewSnapshotSchema, ...changeFields }) },
  'saved_view.deleted': { version: 1, read: viewRead, data: z.object({ viewId: z.string(), view: savedViewSnapshotSchema }) },
} as const satisfies Record<string, CatalogEntry>;

// ---------- sign-in and sessions (docs/adr/0068) ----------

/**
 * The console's sign-in links and sessions (docs/adr/0068): their snapshots and events, spread into
 * EVENT_CATALOG in ../events.ts. Never a token nor its hash: a link's token is asked for by whoever
 * sends the mail, at send time; a session's token lives only in the browser's cookie.
 */

/** Why a session ended: its member signed out, someone revoked it, the member was removed, or their role changed. */
export const SESSION_END_REASONS = ['signed_out', 'revoked', 'member_removed', 'role_changed'] as const;
export type SessionEndReason = (typeof SESSION_END_REASONS)[number];
/** How a link reaches its member: by mail (`POST /auth/sign-in-links`), or handed to an operator (the CLI, `npm start`'s banner). */
export const SIGN_IN_LINK_DELIVERIES = ['mail', 'operator'] as const;

export const signInLinkSnapshotSchema = z.object({
  id: z.string(),
  memberId: z.string(),
  email: z.string(),
  delivery: z.enum(SIGN_IN_LINK_DELIVERIES),
  expiresAt: iso,
  createdAt: iso,
});
export type SignInLinkSnapshot = z.infer<typeof signInLinkSnapshotSchema>;

export const sessionSnapshotSchema = z.object({
  id: z.string(),
  memberId: z.string(),
  /** The partition the session works in (`PATCH /auth/session` switches it). */
  mode: partitionSchema,
  /** The browser's `User-Agent` when it signed in (at most 300 characters), null without one. */
  userAgent: z.string().nullable(),
  createdAt: iso,
  /** When it was last used (kept to the minute). */
  lastUsedAt: iso,
  /** When it ends unless used again (the idle timeout after `lastUsedAt`, never after `expiresAt`). */
  idleExpiresAt: iso,
  /** When it ends however much it is used (its maximum age). */
  expiresAt: iso,
  endedAt: iso.nullable(),
  endReason: z.enum(SESSION_END_REASONS).nullable(),
});
export type SessionSnapshot = z.infer<typeof sessionSnapshotSchema>;

/**
 * A member's own sessions and links (docs/adr/0066), read as `GET /sessions` reads sessions: the member's
 * own keys see them, any other key needs `manage_members`.
 */
const ownSession = { permission: 'manage_members', member: (d: { session: SessionSnapshot }) => d.session.memberId } as const;

export const SESSION_EVENTS = {
  /**
   * A sign-in link was made for a member (`delivery: mail`: the notifications service mails it, asking
   * the workspace for its URL at send time with the internal `issueSignInLink`).
   */
  'sign_in_link.requested': {
    version: 1,
    read: { permission: 'manage_members', member: (d: { signInLink: SignInLinkSnapshot }) => d.signInLink.memberId },
    data: z.object({ signInLink: signInLinkSnapshotSchema, memberName: z.string(), teamName: z.string() }),
  },
  'session.created': { version: 1, read: ownSession, data: z.object({ session: sessionSnapshotSchema, signInLinkId: z.string() }) },
  'session.updated': { version: 1, read: ownSession, data: z.object({ session: sessionSnapshotSchema, ...changeFields }) },
  'session.ended': { version: 1, read: ownSession, data: z.object({ session: sessionSnapshotSchema, reason: z.enum(SESSION_END_REASONS) }) },
} as const satisfies Record<string, CatalogEntry>;
