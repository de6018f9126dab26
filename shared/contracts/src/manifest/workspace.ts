import { z } from 'zod';
import {
  apiKeySnapshotSchema,
  BILLING_PLANS,
  businessHoursSnapshotSchema,
  CUSTOM_FIELD_CONTENT_TYPES,
  CUSTOM_FIELD_TYPES,
  customFieldSnapshotSchema,
  daySlotSchema,
  FEATURE_FLAGS,
  featureFlagsSchema,
  holidaySchema,
  inviteSnapshotSchema,
  memberPreferencesSchema,
  memberSnapshotSchema,
  settingsSnapshotSchema,
  SUBSCRIPTION_STATUSES,
  subscriptionSnapshotSchema,
  ticketStatusConfigSchema,
  WEEKDAYS,
  WIDGET_POSITIONS,
  widgetSnapshotSchema,
  type FeatureFlag,
} from '../catalog/workspace';
import { nameField, paginationFields } from '../fields';
import { PERMISSIONS, ROLES } from '../permissions';
import { defineOperations, deletedSchema } from './operation';

/**
 * The workspace service's operations: members, invites, member and team preferences, settings
 * (docs/adr/0012 members and roles, 0013 invites and keys, 0014 settings). Everything here is per
 * team: a test key and a live key of one team see the same members and settings.
 */

export const MEMBER_EMAIL_MAX = 254;
const emailField = z.email().max(MEMBER_EMAIL_MAX);
/** `#rrggbb`, either case; stored lowercase. */
const hexColor = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, { message: 'must be a hex color #rrggbb' })
  .transform((c) => c.toLowerCase());

/** Canonical IANA zone names as the platform's ICU knows them (kept current with Node's time-zone data), plus UTC. */
const TIME_ZONES = new Set<string>([...Intl.supportedValuesOf('timeZone'), 'UTC']);
export const isTimeZone = (tz: string) => TIME_ZONES.has(tz);
const timeZoneField = z.string().max(64).refine(isTimeZone, { message: 'must be an IANA time zone name such as Europe/Berlin' });

// ---------- members ----------

/** Roles a member can be given by PATCH or an invite: every role but owner (a team has exactly one). */
export const ASSIGNABLE_ROLES = ROLES.filter((r) => r !== 'owner') as Exclude<(typeof ROLES)[number], 'owner'>[];

export const memberSchema = memberSnapshotSchema.meta({ id: 'Member' });
export const listTeamMembersQuery = z.strictObject({ role: z.enum(ROLES).optional(), ...paginationFields(20, 100) });
export const updateMemberBody = z.strictObject({ role: z.enum(ROLES) });
export const memberRoleSchema = z.object({ id: z.string(), role: z.enum(ROLES) }).meta({ id: 'MemberRole' });
export const memberPreferencesBody = z.strictObject({ boringMode: z.boolean() });

// ---------- invites ----------

export const INVITE_TTL_HOURS_DEFAULT = 7 * 24;
export const INVITE_TTL_HOURS_MAX = 30 * 24;
export const inviteSchema = inviteSnapshotSchema.meta({ id: 'Invite' });
export const createInviteBody = z.strictObject({
  email: emailField,
  role: z.enum(ROLES).optional().default('agent'),
  /** How long the invitation link works: 1 hour to 30 days, default 7 days. */
  expiresInHours: z.number().int().min(1).max(INVITE_TTL_HOURS_MAX).optional().default(INVITE_TTL_HOURS_DEFAULT),
});
export type CreateInviteInput = z.output<typeof createInviteBody>;

/** `hdinv_` + the team's UUID without dashes (32 hex) + `_` + 40 base62: the team is known before a look-up. */
export const INVITE_TOKEN_RE = /^hdinv_([0-9a-f]{32})_([A-Za-z0-9]{40})$/;
export const acceptInviteBody = z.strictObject({
  token: z.string().min(1).max(200),
  /** The new member's display name (the invite knows only the email). */
  name: nameField(100),
  avatarUrl: z.url({ protocol: /^https$/ }).max(2_000).optional(),
});
export type AcceptInviteInput = z.output<typeof acceptInviteBody>;

// ---------- settings ----------

/** A BCP 47 language tag the platform's Intl accepts (`en`, `de-CH`, `pt-BR`). */
const languageField = z
  .string()
  .max(35)
  .refine(
    (tag) => {
      try {
        return Intl.getCanonicalLocales(tag).length === 1;
      } catch {
        return false;
      }
    },
    { message: 'must be a BCP 47 language tag such as en or pt-BR' },
  );
export const TEAM_SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
export const settingsSchema = z.object({ object: z.literal('settings') }).extend(settingsSnapshotSchema.shape).meta({ id: 'Settings' });
export const updateSettingsBody = z.strictObject({
  teamName: nameField(100).optional(),
  teamSlug: z.string().regex(TEAM_SLUG_RE, { message: 'must be 1 to 64 lowercase letters, digits and inner dashes' }).optional(),
  defaultTimezone: timeZoneField.optional(),
  defaultLanguage: languageField.optional(),
  supportEmail: emailField.nullable().optional(),
  /** Days after which a `resolved` ticket is closed by the platform; null = never. */
  autoCloseResolvedAfterDays: z.number().int().min(1).max(365).nullable().optional(),
});
export type UpdateSettingsInput = z.output<typeof updateSettingsBody>;

export const ticketStatusSchema = ticketStatusConfigSchema.meta({ id: 'TicketStatusConfig' });
export const updateTicketStatusBody = z.strictObject({
  label: z.string().trim().min(1).max(50).optional(),
  color: hexColor.optional(),
  position: z.number().int().min(0).max(1_000).optional(),
});
export type UpdateTicketStatusInput = z.output<typeof updateTicketStatusBody>;

export const HH_MM_RE = /^([01]\d|2[0-3]):[0-5]\d$/;
const hhmm = z.string().regex(HH_MM_RE, { message: 'must be a time HH:MM (00:00 to 23:59)' });
const daySlotBody = z
  .strictObject({ enabled: z.boolean().optional(), start: hhmm.optional(), end: hhmm.optional() });
const ISO_DATE_RE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const isoDate = z
  .string()
  .regex(ISO_DATE_RE, { message: 'must be a date YYYY-MM-DD' })
  .refine((d) => new Date(`${d}T00:00:00Z`).toISOString().slice(0, 10) === d, { message: 'must be a real calendar date' });
export const HOLIDAYS_MAX = 100;
export const businessHoursSchema = z
  .object({ object: z.literal('business_hours') })
  .extend(businessHoursSnapshotSchema.shape)
  .meta({ id: 'BusinessHours' });
export const updateBusinessHoursBody = z.strictObject({
  enabled: z.boolean().optional(),
  timezone: timeZoneField.optional(),
  /** Weekdays given are merged field by field; each resulting day needs `end` after `start`. */
  schedule: z.strictObject(Object.fromEntries(WEEKDAYS.map((d) => [d, daySlotBody.optional()])) as Record<(typeof WEEKDAYS)[number], z.ZodOptional<typeof daySlotBody>>).optional(),
  /** Replaces the list: dates (YYYY-MM-DD, in the team's time zone) on which the team is closed. */
  holidays: z
    .array(z.strictObject({ date: isoDate, name: z.string().trim().min(1).max(100).nullable().optional() }))
    .max(HOLIDAYS_MAX)
    .optional(),
});
export type UpdateBusinessHoursInput = z.output<typeof updateBusinessHoursBody>;
export type DaySlot = z.output<typeof daySlotSchema>;
export type Holiday = z.output<typeof holidaySchema>;

export const ALLOWED_ORIGINS_MAX = 20;
/** A web origin: scheme, host and optional port; nothing after it. */
const originField = z
  .string()
  .max(255)
  .refine(
    (o) => {
      try {
        const u = new URL(o);
        return (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === o;
      } catch {
        return false;
      }
    },
    { message: 'must be an origin such as https://www.example.com (scheme, host, optional port; no path or trailing slash)' },
  );
export const widgetSettingsSchema = z
  .object({ object: z.literal('widget_settings') })
  .extend(widgetSnapshotSchema.shape)
  .meta({ id: 'WidgetSettings' });
export const updateWidgetBody = z.strictObject({
  position: z.enum(WIDGET_POSITIONS).optional(),
  primaryColor: hexColor.optional(),
  greeting: z.string().trim().min(1).max(280).optional(),
  /** Replaces the list; empty = any origin. */
  allowedOrigins: z.array(originField).max(ALLOWED_ORIGINS_MAX).optional(),
});
export type UpdateWidgetInput = z.output<typeof updateWidgetBody>;

export const teamPreferencesSchema = z.object({ bossBattlesEnabled: z.boolean() }).meta({ id: 'TeamPreferences' });
export const teamPreferencesBody = z.strictObject({ bossBattlesEnabled: z.boolean() });
export const featureFlagsResponseSchema = z.object({ object: z.literal('feature_flags') }).extend(featureFlagsSchema.shape).meta({ id: 'FeatureFlags' });
export const updateFeatureFlagsBody = z.strictObject(
  Object.fromEntries(FEATURE_FLAGS.map((f) => [f, z.boolean().optional()])) as Record<FeatureFlag, z.ZodOptional<z.ZodBoolean>>,
);
export type UpdateFeatureFlagsInput = z.output<typeof updateFeatureFlagsBody>;

// ---------- custom fields ----------

/** Definitions per team and record type (docs/adr/0022). */
export const CUSTOM_FIELDS_PER_TYPE_MAX = 100;
export const CUSTOM_FIELD_OPTIONS_MAX = 100;
export const customFieldSchema = customFieldSnapshotSchema.meta({ id: 'CustomField' });
export const listCustomFieldsQuery = z.strictObject({ entity: z.enum(CUSTOM_FIELD_CONTENT_TYPES).optional() });
const optionsField = z
  .array(z.string().trim().min(1).max(100))
  .min(1)
  .max(CUSTOM_FIELD_OPTIONS_MAX)
  .refine((o) => new Set(o).size === o.length, { message: 'must not repeat an option' });
const boundField = z.number().refine(Number.isFinite, { message: 'must be a finite number' });
const customFieldEditable = {
  label: z.string().trim().min(1).max(100),
  options: optionsField.nullable().optional(),
  defaultValue: z.union([z.string(), z.number(), z.boolean()]).nullable().optional(),
  minValue: boundField.nullable().optional(),
  maxValue: boundField.nullable().optional(),
  required: z.boolean().optional(),
};
export const createCustomFieldBody = z.strictObject({
  contentType: z.enum(CUSTOM_FIELD_CONTENT_TYPES),
  fieldType: z.enum(CUSTOM_FIELD_TYPES).optional().default('text'),
  ...customFieldEditable,
});
export type CreateCustomFieldInput = z.output<typeof createCustomFieldBody>;
/** `contentType` and `fieldType` cannot change: the values already stored were checked against them. */
export const updateCustomFieldBody = z.strictObject({ ...customFieldEditable, label: customFieldEditable.label.optional() });
export type UpdateCustomFieldInput = z.output<typeof updateCustomFieldBody>;
export const reorderCustomFieldsBody = z.strictObject({
  contentType: z.enum(CUSTOM_FIELD_CONTENT_TYPES),
  fieldIds: z.array(z.string().min(1).max(100)).max(CUSTOM_FIELDS_PER_TYPE_MAX),
});
export type ReorderCustomFieldsInput = z.output<typeof reorderCustomFieldsBody>;

// ---------- audit log ----------

/** A date-time (offset required) or a date (YYYY-MM-DD, midnight UTC): `startDate`/`endDate` of the audit log. */
const auditDateField = z.union([z.iso.datetime({ offset: true }), z.iso.date()]);
export const listAuditLogQuery = z.strictObject({
  action: z.string().min(1).max(100).optional(),
  resourceType: z.string().min(1).max(100).optional(),
  actorId: z.string().min(1).max(100).optional(),
  startDate: auditDateField.optional(),
  endDate: auditDateField.optional(),
  ...paginationFields(20, 100),
});
export type ListAuditLogQuery = z.output<typeof listAuditLogQuery>;
export const auditLogEntrySchema = z
  .object({
    id: z.string(),
    object: z.literal('audit_log_entry'),
    action: z.string(),
    resourceType: z.string(),
    resourceId: z.string().nullable(),
    actorType: z.enum(['key', 'member', 'system']),
    actorId: z.string().nullable(),
    /** The console session the member acted through (`ses_…`, docs/adr/0068), null for a key or the system. */
    actorSessionId: z.string().nullable(),
    actorName: z.string(),
    details: z.record(z.string(), z.unknown()),
    createdAt: z.string().datetime(),
    sequence: z.number().int(),
    previousHash: z.string().nullable(),
    hash: z.string(),
  })
  .meta({ id: 'AuditLogEntry' });
export const auditLogVerificationSchema = z
  .object({
    object: z.literal('audit_log_verification'),
    valid: z.boolean(),
    checkedCount: z.number().int(),
    firstBrokenEntryId: z.string().nullable(),
    reason: z.enum(['hash_mismatch', 'previous_hash_mismatch', 'sequence_gap']).nullable(),
  })
  .meta({ id: 'AuditLogVerification' });

// ---------- billing ----------

export const subscriptionSchema = subscriptionSnapshotSchema.meta({ id: 'Subscription' });
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
/**
 * Where the portal sends the browser back: https, or http on a loopback host (development). Never
 * credentials in it. The page only ever redirects to the URL stored with its session (docs/adr/0024).
 */
export const returnUrlField = z
  .url({ protocol: /^https?$/ })
  .max(2_000)
  .refine(
    (v) => {
      // zod runs this even when the url check failed: a value URL cannot parse is simply refused.
      let u: URL;
      try {
        u = new URL(v);
      } catch {
        return false;
      }
      return !u.username && !u.password && (u.protocol === 'https:' || LOOPBACK_HOSTS.has(u.hostname));
    },
    { message: 'must be an https URL (or http on 127.0.0.1, localhost or [::1]) without credentials' },
  );
export const createBillingPortalBody = z.strictObject({ returnUrl: returnUrlField });
/** A portal session's secret (in the page's URL): `bps_` and 43 base64url characters. */
export const PORTAL_SESSION_RE = /^bps_[A-Za-z0-9_-]{43}$/;
const portalSession = z.string().regex(PORTAL_SESSION_RE, { message: 'must be a billing portal session' });
/** What the portal page shows: the plans, the subscription, where to go back. */
export const billingPortalPageSchema = z.object({
  subscription: subscriptionSnapshotSchema,
  plans: z.array(z.object({ plan: z.enum(BILLING_PLANS), name: z.string(), pricePerMember: z.string() })),
  returnUrl: z.string(),
});
export const billingPortalActionBody = z.strictObject({
  session: portalSession,
  action: z.enum(['choose_plan', 'cancel']),
  plan: z.enum(BILLING_PLANS).optional(),
});
export type BillingPortalAction = z.output<typeof billingPortalActionBody>;
/** Stripe's webhook bodies are small; anything larger is not from it. */
export const STRIPE_WEBHOOK_MAX_BYTES = 256 * 1024;
export const billingPortalSchema = z.object({ object: z.literal('billing_portal'), url: z.string() }).meta({ id: 'BillingPortal' });

// ---------- operations ----------

const members = { service: 'workspace', tag: 'Members', keys: 'staff' } as const;
const invites = { service: 'workspace', tag: 'Invites', keys: 'staff' } as const;
const settings = { service: 'workspace', tag: 'Settings', keys: 'staff' } as const;
const customFields = { service: 'workspace', tag: 'Custom fields', keys: 'staff' } as const;
const auditLog = { service: 'workspace', tag: 'Audit log', keys: 'staff' } as const;
const billing = { service: 'workspace', tag: 'Billing', keys: 'staff' } as const;
const memberParams = { teamId: 'team', memberId: 'member' } as const;
const team = { teamId: 'team' } as const;
const WRITE = ['parameter_missing', 'parameter_invalid', 'invalid_json', 'idempotency_key_in_use'] as const;
const PER_TEAM = 'Per team: test and live keys of the team see the same data (docs/adr/0012).';

export const WORKSPACE = defineOperations({
  listMembers: {
    ...members,
    method: 'GET',
    path: '/teams/{teamId}/members',
    summary: 'List members',
    description:
      `Oldest member first (the owner leads). \`role\` filters. Pagination is top-level (\`pagination\` beside \`data\`), as the spec says. ${PER_TEAM} ` +
      '`level` and `xp`: the game world of the key\'s partition (see `GET /members/{memberId}`).',
    permission: 'view_members',
    params: team,
    query: listTeamMembersQuery,
    success: { status: 200, data: z.array(memberSchema), shape: 'envelope', pagination: 'top' },
    errors: ['parameter_invalid'],
  },
  getMember: {
    ...members,
    method: 'GET',
    path: '/teams/{teamId}/members/{memberId}',
    summary: 'Retrieve a member',
    description:
      '`permissions` is the role\'s set (shared/contracts permissions.ts). `level` and `xp` are the member\'s season level and XP in ' +
      'the game world of the key\'s partition (each partition plays its own, docs/adr/0033): a test key sees what test-partition ' +
      'closes paid, a live key the live world; 1 and 0 until the game reports progress, a moment after the close that paid it.',
    permission: 'view_members',
    params: memberParams,
    success: { status: 200, data: memberSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  updateMember: {
    ...members,
    method: 'PATCH',
    path: '/teams/{teamId}/members/{memberId}',
    summary: "Change a member's role",
    description:
      "Answers `{id, role}`. `role: owner` is 400 (param role): a team has exactly one owner. The owner's own role cannot change: 409 " +
      "`resource_conflict`. The member's keys carry the new role's permissions at the gateway within 5 seconds (docs/adr/0012).",
    permission: 'manage_members',
    params: memberParams,
    body: updateMemberBody,
    success: { status: 200, data: memberRoleSchema, shape: 'envelope' },
    errors: [...WRITE, 'resource_not_found', 'resource_conflict'],
  },
  deleteMember: {
    ...members,
    method: 'DELETE',
    path: '/teams/{teamId}/members/{memberId}',
    summary: 'Remove a member',
    description:
      "Answers `{deleted: true, id}`. The owner cannot be removed (409 `resource_conflict`). Within 5 seconds every key of the member " +
      'answers 401 `invalid_api_key` at the gateway (docs/adr/0012).',
    permission: 'manage_members',
    params: memberParams,
    success: { status: 200, data: deletedSchema, shape: 'envelope' },
    errors: ['resource_not_found', 'resource_conflict'],
  },
  getMemberPreferences: {
    ...members,
    method: 'GET',
    path: '/teams/{teamId}/members/{memberId}/preferences',
    summary: "A member's preferences",
    description: '`boringMode` (default false). Needs `manage_members`, as the spec says.',
    permission: 'manage_members',
    params: memberParams,
    success: { status: 200, data: memberPreferencesSchema.meta({ id: 'MemberPreferences' }), shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  updateMemberPreferences: {
    ...members,
    method: 'PATCH',
    path: '/teams/{teamId}/members/{memberId}/preferences',
    summary: "Change a member's preferences",
    description: '`boringMode: true` hides XP, bosses and achievements for that member while XP keeps accruing. Emits `member.preferences_updated` when it changes.',
    permission: 'manage_members',
    params: memberParams,
    body: memberPreferencesBody,
    success: { status: 200, data: memberPreferencesSchema, shape: 'envelope' },
    errors: [...WRITE, 'resource_not_found'],
  },

  listInvites: {
    ...invites,
    method: 'GET',
    path: '/teams/{teamId}/invites',
    summary: 'List pending invites',
    description: `Pending invites only (not accepted, revoked or expired), newest first. Not paginated. ${PER_TEAM}`,
    permission: 'view_members',
    params: team,
    success: { status: 200, data: z.array(inviteSchema), shape: 'envelope' },
    errors: [],
  },
  createInvite: {
    ...invites,
    method: 'POST',
    path: '/teams/{teamId}/invites',
    summary: 'Invite someone by email',
    description:
      '`role` defaults to `agent`; `owner` is 400 (param role). 409 `resource_conflict` (param email) when the email is already a member ' +
      'or already has a pending invite (emails compare case-insensitively). The invitation link carries a single-use token valid for ' +
      '`expiresInHours` (default 168, at most 720); it is never returned here nor put in an event: `member.invited` tells the ' +
      "notifications service (the team name, the inviter's name), which asks for the link when it sends the message (docs/adr/0013). " +
      'The first secret key of the new member is in the partition of the key that invited them. `message` is the invitation ' +
      "message's outcome as its sender reports it: `queued` until then, then `sent` or `failed` (with `error`).",
    permission: 'manage_members',
    params: team,
    body: createInviteBody,
    success: { status: 201, data: inviteSchema, shape: 'envelope' },
    errors: [...WRITE, 'resource_conflict'],
  },
  revokeInvite: {
    ...invites,
    method: 'DELETE',
    path: '/teams/{teamId}/invites/{inviteId}',
    summary: 'Revoke an invite',
    description: 'Only a pending invite (404 otherwise). Its link then answers 410 `invite_revoked`. Emits `invite.revoked`.',
    permission: 'manage_members',
    params: { teamId: 'team', inviteId: 'invite' },
    success: { status: 200, data: deletedSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },

  getSettings: {
    ...settings,
    method: 'GET',
    path: '/teams/{teamId}/settings',
    summary: "The team's settings",
    description:
      'Besides `teamName` and `teamSlug`: `defaultTimezone` (IANA, default UTC), `defaultLanguage` (BCP 47, default en), `supportEmail` ' +
      '(the reply-to address of outgoing mail, or null), `autoCloseResolvedAfterDays` (resolved tickets are closed after that many days; ' +
      `null = never, the default). Any secret key of the team may read them (docs/adr/0014). ${PER_TEAM}`,
    permission: null,
    params: team,
    success: { status: 200, data: settingsSchema, shape: 'envelope' },
    errors: [],
  },
  updateSettings: {
    ...settings,
    method: 'PATCH',
    path: '/teams/{teamId}/settings',
    summary: "Change the team's settings",
    description:
      'Only given fields change. `teamSlug` is unique across teams (409, param teamSlug). A new name or slug shows in `GET /auth/whoami` ' +
      'within 5 seconds. Emits `settings.updated` when something changed.',
    permission: 'manage_settings',
    params: team,
    body: updateSettingsBody,
    success: { status: 200, data: settingsSchema, shape: 'envelope' },
    errors: [...WRITE, 'resource_conflict'],
  },
  listTicketStatuses: {
    ...settings,
    method: 'GET',
    path: '/teams/{teamId}/settings/statuses',
    summary: 'The ticket statuses',
    description:
      'The six ticket statuses (new, open, pending, resolved, closed, merged) with the team\'s labels, colours and order, by `position` ' +
      'then key. All are built in and `isProtected` (ticketing accepts no others), so none can be deleted; their labels, colours and ' +
      'positions can be changed.',
    permission: null,
    params: team,
    success: { status: 200, data: z.array(ticketStatusSchema), shape: 'envelope' },
    errors: [],
  },
  updateTicketStatus: {
    ...settings,
    method: 'PATCH',
    path: '/teams/{teamId}/settings/statuses/{statusKey}',
    summary: "Change a ticket status's label, colour or position",
    description:
      '`label` (1 to 50 characters), `color` (#rrggbb), `position` (0 to 1,000; the list is ordered by position, then key). The key ' +
      'cannot change. Emits `ticket_status.updated`.',
    permission: 'manage_settings',
    params: { teamId: 'team', statusKey: 'slug' },
    body: updateTicketStatusBody,
    success: { status: 200, data: ticketStatusSchema, shape: 'envelope' },
    errors: [...WRITE, 'resource_not_found'],
  },
  getBusinessHours: {
    ...settings,
    method: 'GET',
    path: '/teams/{teamId}/settings/business-hours',
    summary: "The team's business hours",
    description: 'Default: disabled, UTC, Monday to Friday 09:00 to 17:00, weekends off, no holidays.',
    permission: null,
    params: team,
    success: { status: 200, data: businessHoursSchema, shape: 'envelope' },
    errors: [],
  },
  updateBusinessHours: {
    ...settings,
    method: 'PATCH',
    path: '/teams/{teamId}/settings/business-hours',
    summary: "Change the team's business hours",
    description:
      '`timezone` is an IANA zone name (the platform\'s ICU data; 400 otherwise). `schedule` days are merged field by field; times are ' +
      '`HH:MM` and a day\'s `end` must be after its `start` (400, param `schedule.<day>.end`). `holidays` replaces the list: up to 100 ' +
      'distinct dates `YYYY-MM-DD` with an optional name, kept in date order; the team is closed all day on each. Emits ' +
      '`business_hours.updated`.',
    permission: 'manage_settings',
    params: team,
    body: updateBusinessHoursBody,
    success: { status: 200, data: businessHoursSchema, shape: 'envelope' },
    errors: [...WRITE],
  },
  getWidgetSettings: {
    ...settings,
    method: 'GET',
    path: '/teams/{teamId}/settings/widget',
    summary: "The chat widget's settings",
    description: 'Default: bottom-right, #4f46e5, greeting "Hi! How can we help?", any origin.',
    permission: null,
    params: team,
    success: { status: 200, data: widgetSettingsSchema, shape: 'envelope' },
    errors: [],
  },
  updateWidgetSettings: {
    ...settings,
    method: 'PATCH',
    path: '/teams/{teamId}/settings/widget',
    summary: "Change the chat widget's settings",
    description:
      '`position` (bottom-right, bottom-left, top-right, top-left), `primaryColor` (#rrggbb), `greeting` (1 to 280 characters), ' +
      '`allowedOrigins` (replaces the list; up to 20 origins such as https://shop.example.com; empty = any origin). Emits ' +
      '`widget_settings.updated`.',
    permission: 'manage_settings',
    params: team,
    body: updateWidgetBody,
    success: { status: 200, data: widgetSettingsSchema, shape: 'envelope' },
    errors: [...WRITE],
  },
  getFeatureFlags: {
    ...settings,
    method: 'GET',
    path: '/teams/{teamId}/settings/feature-flags',
    summary: "The team's game feature flags",
    description: `Every game feature's switch (${FEATURE_FLAGS.join(', ')}); all true by default (docs/adr/0014).`,
    permission: null,
    params: team,
    success: { status: 200, data: featureFlagsResponseSchema, shape: 'envelope' },
    errors: [],
  },
  updateFeatureFlags: {
    ...settings,
    method: 'PATCH',
    path: '/teams/{teamId}/settings/feature-flags',
    summary: "Switch the team's game features on or off",
    description: 'Only given flags change. `bossBattlesEnabled` is the same switch as `PATCH /preferences`. Emits `feature_flags.updated` when one changed.',
    permission: 'manage_settings',
    params: team,
    body: updateFeatureFlagsBody,
    success: { status: 200, data: featureFlagsResponseSchema, shape: 'envelope' },
    errors: [...WRITE],
  },
  getTeamPreferences: {
    ...settings,
    method: 'GET',
    path: '/teams/{teamId}/preferences',
    summary: "The team's preferences",
    description: '`{bossBattlesEnabled}`; needs `manage_settings`, as the spec says.',
    permission: 'manage_settings',
    params: team,
    success: { status: 200, data: teamPreferencesSchema, shape: 'envelope' },
    errors: [],
  },
  updateTeamPreferences: {
    ...settings,
    method: 'PATCH',
    path: '/teams/{teamId}/preferences',
    summary: "Change the team's preferences",
    description: '`bossBattlesEnabled: false` hides the boss feature for every agent. Emits `feature_flags.updated` when it changed.',
    permission: 'manage_settings',
    params: team,
    body: teamPreferencesBody,
    success: { status: 200, data: teamPreferencesSchema, shape: 'envelope' },
    errors: [...WRITE],
  },
  listCustomFields: {
    ...customFields,
    method: 'GET',
    path: '/teams/{teamId}/custom-fields',
    summary: 'List custom field definitions',
    description:
      'In display order: by record type (ticket, customer, article), then `sortOrder`, then creation. `entity` keeps one record type. ' +
      `Not paginated (at most ${CUSTOM_FIELDS_PER_TYPE_MAX} per type). Any secret key of the team reads them. ${PER_TEAM}`,
    permission: null,
    params: team,
    query: listCustomFieldsQuery,
    success: { status: 200, data: z.array(customFieldSchema), shape: 'envelope' },
    errors: ['parameter_invalid'],
  },
  createCustomField: {
    ...customFields,
    method: 'POST',
    path: '/teams/{teamId}/custom-fields',
    summary: 'Define a custom field',
    description:
      '`fieldType` defaults to `text`. `options` (1 to 100 distinct choices) is required for `select` and refused for other types; ' +
      '`minValue`/`maxValue` only for `number`, min ≤ max (param maxValue); `defaultValue` must be a valid value of the field ' +
      '(text: a string of at most 1,000 characters; number: within the bounds; date: YYYY-MM-DD; select: one of the options; ' +
      'checkbox: a boolean). Placed at the end of its type (`sortOrder` one past the last). At most ' +
      `${CUSTOM_FIELDS_PER_TYPE_MAX} per record type (400, param contentType). Tickets, customers and articles then accept ` +
      '`customFields: {fieldId: value}`, checked by their services within seconds (docs/adr/0022). Emits `custom_field.created`.',
    permission: 'manage_settings',
    params: team,
    body: createCustomFieldBody,
    success: { status: 201, data: customFieldSchema, shape: 'envelope' },
    errors: [...WRITE],
  },
  getCustomField: {
    ...customFields,
    method: 'GET',
    path: '/teams/{teamId}/custom-fields/{fieldId}',
    summary: 'Retrieve a custom field definition',
    description: PER_TEAM,
    permission: null,
    params: { teamId: 'team', fieldId: 'customField' },
    success: { status: 200, data: customFieldSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  updateCustomField: {
    ...customFields,
    method: 'PATCH',
    path: '/teams/{teamId}/custom-fields/{fieldId}',
    summary: 'Change a custom field definition',
    description:
      'Only given fields change; the result must satisfy the same rules as a new definition. `contentType` and `fieldType` cannot ' +
      'change (400 unknown field): values already stored were checked against them; define a new field instead. Values already ' +
      'stored are not re-checked; the next write of a record checks the values it sends. Emits `custom_field.updated` when something changed.',
    permission: 'manage_settings',
    params: { teamId: 'team', fieldId: 'customField' },
    body: updateCustomFieldBody,
    success: { status: 200, data: customFieldSchema, shape: 'envelope' },
    errors: [...WRITE, 'resource_not_found'],
  },
  deleteCustomField: {
    ...customFields,
    method: 'DELETE',
    path: '/teams/{teamId}/custom-fields/{fieldId}',
    summary: 'Delete a custom field definition',
    description:
      'Answers `{deleted: true, id}`. Emits `custom_field.deleted`; the owning service then removes the field\'s values from its ' +
      'records within seconds, and refuses the field in writes (docs/adr/0022).',
    permission: 'manage_settings',
    params: { teamId: 'team', fieldId: 'customField' },
    success: { status: 200, data: deletedSchema, shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  reorderCustomFields: {
    ...customFields,
    method: 'POST',
    path: '/teams/{teamId}/custom-fields/reorder',
    summary: "Set a record type's display order",
    description:
      '`fieldIds` lists every definition of `contentType` exactly once, in the new order (400, param fieldIds, otherwise); ' +
      '`sortOrder` becomes each one\'s position from 0. Answers the type\'s definitions in order. Emits `custom_field.updated` for each moved one.',
    permission: 'manage_settings',
    params: team,
    body: reorderCustomFieldsBody,
    success: { status: 200, data: z.array(customFieldSchema), shape: 'envelope' },
    errors: [...WRITE],
  },
  listAuditLog: {
    ...auditLog,
    method: 'GET',
    path: '/teams/{teamId}/audit-log',
    summary: 'List audit log entries',
    description:
      'Every event of every service becomes one entry (written once even when an event is redelivered), newest first, in the ' +
      'partition of the key. `action` is the event type, `details` its data. Filters: `action`, `resourceType`, `actorId`, ' +
      '`startDate`/`endDate` (ISO 8601 date-time with offset, or a date; inclusive). Entries cannot be changed or deleted through ' +
      'the API. Each carries `sequence` and the `previousHash` of the previous entry of its team and partition, and its own ' +
      '`hash` (SHA-256): see `/audit-log/verify`. Kept for AUDIT_RETENTION_DAYS (default 365) (docs/adr/0023).',
    permission: 'view_audit_log',
    params: team,
    query: listAuditLogQuery,
    success: { status: 200, data: z.array(auditLogEntrySchema), shape: 'envelope', pagination: 'meta' },
    errors: ['parameter_invalid'],
  },
  verifyAuditLog: {
    ...auditLog,
    method: 'GET',
    path: '/teams/{teamId}/audit-log/verify',
    summary: "Verify the audit log's hash chain",
    description:
      'Recomputes every entry\'s hash in sequence order and checks each `previousHash` and the sequence: answers `valid` and, ' +
      'when broken, the first broken entry and why (`hash_mismatch`: the entry was changed; `previous_hash_mismatch` or ' +
      '`sequence_gap`: an entry before it was changed, removed or inserted). The oldest kept entry starts the chain (retention ' +
      'removes older ones) (docs/adr/0023).',
    permission: 'view_audit_log',
    params: team,
    success: { status: 200, data: auditLogVerificationSchema, shape: 'envelope' },
    errors: [],
  },
  getSubscription: {
    ...billing,
    method: 'GET',
    path: '/teams/{teamId}/billing/subscription',
    summary: "The team's subscription",
    description:
      '`status` (`active`, `trialing`, `past_due`, `canceled`, `unpaid`), `plan` (`free` until one is chosen in the portal), ' +
      '`memberCount` (the team\'s members now), `currentPeriodEnd` (null on `free`) and `cancelAtPeriodEnd`. Reads and writes keep ' +
      'working in every status (docs/adr/0024). ' + PER_TEAM,
    permission: 'manage_billing',
    params: team,
    success: { status: 200, data: subscriptionSchema, shape: 'envelope' },
    errors: [],
  },
  createBillingPortal: {
    ...billing,
    method: 'POST',
    path: '/teams/{teamId}/billing/portal',
    summary: 'Open a billing portal session',
    description:
      'Answers `{object: billing_portal, url}`: a single page, valid for one hour, where a plan can be chosen or the subscription ' +
      'cancelled; it then sends the browser to `returnUrl` (https, or http on a loopback host; never credentials). The page only ' +
      'ever redirects to the `returnUrl` given here, so it cannot be used as an open redirect. A change there emits ' +
      '`billing.subscription_updated` (docs/adr/0024). ' + PER_TEAM,
    permission: 'manage_billing',
    params: team,
    body: createBillingPortalBody,
    success: { status: 200, data: billingPortalSchema, shape: 'envelope' },
    errors: [...WRITE],
  },
});

// ---------- internal ----------

/** What the gateway needs about a key's member and team (cached with the key, docs/adr/0012). */
export const keyAccessSchema = z.object({
  team: z.object({ name: z.string(), slug: z.string(), subscriptionStatus: z.enum(SUBSCRIPTION_STATUSES).optional() }).nullable(),
  member: z.object({ id: z.string(), role: z.enum(ROLES), permissions: z.array(z.enum(PERMISSIONS)) }).nullable(),
});
export type KeyAccess = z.infer<typeof keyAccessSchema>;

const internal = { service: 'workspace', tag: 'Members', keys: 'secret', internal: true } as const;

/**
 * Asked by the gateway (which owns teams and keys) with a token it mints for the team; never routed
 * by it, never in the public document.
 */
export const WORKSPACE_INTERNAL = defineOperations({
  getKeyAccess: {
    ...internal,
    method: 'GET',
    path: '/internal/access',
    summary: "A key's member (role, permissions) and the team's name and slug; member null when removed",
    permission: null,
    params: {},
    query: z.strictObject({ memberId: z.string().max(100).optional() }),
    success: { status: 200, data: keyAccessSchema, shape: 'envelope' },
    errors: ['parameter_invalid'],
  },
  createTeamOwner: {
    ...internal,
    method: 'POST',
    path: '/internal/owner',
    summary: "A new team's owner member and settings (idempotent: the existing owner when there is one)",
    permission: null,
    params: {},
    body: z.strictObject({ name: nameField(100), email: emailField, teamName: z.string().min(1).max(255), teamSlug: z.string().min(1).max(64) }),
    success: { status: 201, data: memberSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid'],
  },
  acceptInviteToken: {
    ...internal,
    method: 'POST',
    path: '/internal/invites/accept',
    summary: 'Accepts an invite by its token: the new member, and the partition of its first key',
    permission: null,
    params: {},
    body: acceptInviteBody,
    success: { status: 201, data: z.object({ member: memberSchema, mode: z.enum(['test', 'live']) }), shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'resource_not_found', 'resource_conflict', 'invite_expired', 'invite_revoked', 'invite_already_accepted'],
  },
  issueInviteLink: {
    ...internal,
    method: 'POST',
    path: '/internal/invites/{inviteId}/link',
    summary: "A pending invite's link with a new single-use token (any earlier link stops working); for the invitation message",
    permission: null,
    params: { inviteId: 'invite' },
    success: { status: 201, data: z.object({ acceptUrl: z.string(), token: z.string(), expiresAt: z.string().datetime() }), shape: 'envelope' },
    errors: ['resource_not_found'],
  },
  recordInviteMessage: {
    ...internal,
    method: 'POST',
    path: '/internal/invites/{inviteId}/message',
    summary: "The invitation message's outcome (sent, or failed with why), as its sender reports it; shown on the invite",
    permission: null,
    params: { inviteId: 'invite' },
    body: z.strictObject({ status: z.enum(['sent', 'failed']), error: z.string().max(500).optional() }),
    success: { status: 200, data: inviteSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'resource_not_found'],
  },
  getBillingPortalPage: {
    ...internal,
    tag: 'Billing',
    method: 'GET',
    path: '/internal/billing/portal',
    summary: "A local billing portal session's page: the subscription and the plans (404 when unknown or expired)",
    permission: null,
    params: {},
    query: z.strictObject({ session: portalSession }),
    success: { status: 200, data: billingPortalPageSchema, shape: 'envelope' },
    errors: ['parameter_invalid', 'resource_not_found'],
  },
  actOnBillingPortal: {
    ...internal,
    tag: 'Billing',
    method: 'POST',
    path: '/internal/billing/portal',
    summary: 'A plan chosen or the subscription cancelled on the local portal page; answers the page again (with its returnUrl)',
    permission: null,
    params: {},
    body: billingPortalActionBody,
    success: { status: 200, data: billingPortalPageSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'resource_not_found'],
  },
  receiveStripeWebhook: {
    ...internal,
    tag: 'Billing',
    method: 'POST',
    path: '/internal/billing/stripe-webhook',
    summary:
      "Stripe's webhook as the gateway received it (the raw body and its Stripe-Signature header): verified with the SDK, " +
      'a customer.subscription.* event updates its team\'s subscription. 404 with the local provider; 400 param signature when it does not verify',
    permission: null,
    params: {},
    body: z.strictObject({ payload: z.string().max(STRIPE_WEBHOOK_MAX_BYTES), signature: z.string().max(2_000) }),
    success: { status: 200, data: z.object({ received: z.literal(true), applied: z.boolean() }), shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'resource_not_found'],
  },
  recordApiKeyEvent: {
    ...internal,
    method: 'POST',
    path: '/internal/api-key-events',
    summary: 'Emits api_key.created or api_key.revoked for the gateway (which has no outbox of its own)',
    permission: null,
    params: {},
    body: z.strictObject({ type: z.enum(['api_key.created', 'api_key.revoked']), apiKey: apiKeySnapshotSchema }),
    success: { status: 201, data: z.object({ eventId: z.string() }), shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid'],
  },
});
