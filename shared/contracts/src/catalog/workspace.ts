import { z } from 'zod';
import { PERMISSIONS, ROLES } from '../permissions';

/**
 * The workspace service's events (type → {version, data schema}), spread into EVENT_CATALOG in ../events.ts.
 * Snapshot schemas the events carry live here too, so that each service's events sit in one file.
 * Members, invites and settings are per team (docs/adr/0012): `mode` on these events is the
 * partition of the key that made the change, not a partition of the data.
 */
const iso = z.string().datetime();
const changeFields = { changes: z.array(z.string()), previous: z.record(z.string(), z.unknown()) };

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
  mode: z.enum(['test', 'live']),
  name: z.string().nullable(),
  scopes: z.array(z.enum(PERMISSIONS)).nullable(),
  memberId: z.string().nullable(),
  createdAt: iso,
  expiresAt: iso.nullable(),
  revokedAt: iso.nullable(),
});
export type ApiKeySnapshot = z.infer<typeof apiKeySnapshotSchema>;

export const WORKSPACE_EVENTS = {
  'member.joined': {
    version: 1,
    data: z.object({ member: memberSnapshotSchema, via: z.enum(['team_created', 'invite']), inviteId: z.string().nullable() }),
  },
  'member.role_changed': { version: 1, data: z.object({ member: memberSnapshotSchema, previousRole: z.enum(ROLES) }) },
  'member.removed': { version: 1, data: z.object({ memberId: z.string(), member: memberSnapshotSchema }) },
  'member.preferences_updated': { version: 1, data: z.object({ memberId: z.string(), preferences: memberPreferencesSchema, ...changeFields }) },
  /**
   * What the notifications service needs to send the invitation: the invite, the team's name and
   * the inviter's. The link is never in an event (events reach webhooks): the sender asks for it
   * with the internal `issueInviteLink` (docs/adr/0013).
   */
  'member.invited': {
    version: 1,
    data: z.object({ invite: inviteSnapshotSchema, teamName: z.string(), inviterName: z.string().nullable() }),
  },
  'invite.revoked': { version: 1, data: z.object({ invite: inviteSnapshotSchema }) },
  'invite.message_recorded': { version: 1, data: z.object({ invite: inviteSnapshotSchema }) },
  'invite.accepted': { version: 1, data: z.object({ invite: inviteSnapshotSchema, memberId: z.string() }) },
  'settings.updated': { version: 1, data: z.object({ settings: settingsSnapshotSchema, ...changeFields }) },
  'feature_flags.updated': { version: 1, data: z.object({ featureFlags: featureFlagsSchema, ...changeFields }) },
  'ticket_status.updated': { version: 1, data: z.object({ status: ticketStatusConfigSchema, ...changeFields }) },
  'business_hours.updated': { version: 1, data: z.object({ businessHours: businessHoursSnapshotSchema, ...changeFields }) },
  'widget_settings.updated': { version: 1, data: z.object({ widget: widgetSnapshotSchema, ...changeFields }) },
  'api_key.created': { version: 1, data: z.object({ apiKey: apiKeySnapshotSchema }) },
  'api_key.revoked': { version: 1, data: z.object({ apiKey: apiKeySnapshotSchema }) },
} as const satisfies Record<string, { version: number; data: z.ZodType }>;
