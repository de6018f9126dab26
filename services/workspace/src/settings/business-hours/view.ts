import { WEEKDAYS } from '@helpdesk/contracts';
import type { BusinessHoursDoc } from '../model';

/** The spec's business hours, weekdays Monday first, holidays in date order. */
export function businessHoursView(b: BusinessHoursDoc) {
  return {
    enabled: b.enabled,
    timezone: b.timezone,
    schedule: Object.fromEntries(WEEKDAYS.map((d) => [d, { ...b.schedule[d] }])) as Record<(typeof WEEKDAYS)[number], BusinessHoursDoc['schedule'][string]>,
    holidays: b.holidays.map((h) => ({ ...h })),
  };
}

/** `GET`/`PATCH /settings/business-hours`'s answer. */
export const businessHoursSettingsView = (b: BusinessHoursDoc) => ({ object: 'business_hours' as const, ...businessHoursView(b) });
