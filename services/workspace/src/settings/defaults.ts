import { FEATURE_FLAGS, WEEKDAYS, type FeatureFlag } from '@helpdesk/contracts';
import type { BusinessHoursDoc, StatusEntry, WidgetDoc } from './model';

/** A new team's settings besides its name and slug (docs/adr/0014). */
export const DEFAULT_TIMEZONE = 'UTC';
export const DEFAULT_LANGUAGE = 'en';

/** Ticketing's six statuses, all built in (it accepts no others), with their default labels and colours. */
export const DEFAULT_TICKET_STATUSES: readonly StatusEntry[] = [
  { key: 'new', label: 'New', color: '#3b82f6', position: 0 },
  { key: 'open', label: 'Open', color: '#f59e0b', position: 1 },
  { key: 'pending', label: 'Pending', color: '#a855f7', position: 2 },
  { key: 'resolved', label: 'Resolved', color: '#22c55e', position: 3 },
  { key: 'closed', label: 'Closed', color: '#6b7280', position: 4 },
  { key: 'merged', label: 'Merged', color: '#94a3b8', position: 5 },
];

export const defaultBusinessHours = (): BusinessHoursDoc => ({
  enabled: false,
  timezone: DEFAULT_TIMEZONE,
  schedule: Object.fromEntries(WEEKDAYS.map((d) => [d, { enabled: d !== 'saturday' && d !== 'sunday', start: '09:00', end: '17:00' }])),
  holidays: [],
});

export const defaultWidget = (): WidgetDoc => ({
  position: 'bottom-right',
  primaryColor: '#4f46e5',
  greeting: 'Hi! How can we help?',
  allowedOrigins: [],
});

export const defaultFeatureFlags = (): Record<FeatureFlag, boolean> =>
  Object.fromEntries(FEATURE_FLAGS.map((f) => [f, true])) as Record<FeatureFlag, boolean>;
