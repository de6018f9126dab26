import { z } from 'zod';
import {
  businessHoursSnapshotSchema,
  daySlotSchema,
  FEATURE_FLAGS,
  type FeatureFlag,
  featureFlagsSchema,
  holidaySchema,
  settingsSnapshotSchema,
  ticketStatusConfigSchema,
  WEEKDAYS,
  WIDGET_POSITIONS,
  widgetSnapshotSchema,
} from '../../catalog/workspace';
import { nameField } from '../../fields';
import { defineOperations } from '../operation';
import { emailField, hexColor, PER_TEAM, settings, team, timeZoneField, WRITE } from './common';

/** The team's settings: statuses, business hours, widget, feature flags, preferences (docs/adr/0014). */

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


export const SETTINGS = defineOperations({
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
});
