import type { EventData, EventEnvelope } from '@helpdesk/contracts';
import type { TicketingModels } from '../models';
import type { WorkingCalendar } from './working-time';
import type { BusinessHoursDoc } from './model';

/**
 * The team's working calendar as SLA clocks read it (docs/adr/0026). Until the workspace says
 * otherwise business hours are off (the workspace's default), and a team whose business hours are
 * off counts every hour, like a 24x7 rule.
 */
export function businessHoursRules({ models }: { models: TicketingModels }) {
  return {
    /** `business_hours.updated`: the newest snapshot wins (by the event's time). */
    async apply(event: EventEnvelope<EventData<'business_hours.updated'>>): Promise<void> {
      const b = event.data.businessHours;
      const asOf = new Date(event.occurredAt);
      const row: Omit<BusinessHoursDoc, '_id'> = {
        enabled: b.enabled,
        timezone: b.timezone,
        schedule: b.schedule,
        holidays: b.holidays.map((h) => h.date),
        asOf,
      };
      await models.businessHours
        .updateOne({ _id: event.teamId, asOf: { $lte: asOf } }, { $set: row }, { upsert: true })
        .catch((err: { code?: number }) => {
          // A newer row exists: the upsert's insert collided with it, and the newer row stays.
          if (err.code !== 11000) throw err;
        });
    },

    /** The calendar to count in, or null when every hour counts (business hours off or never set). */
    async calendarOf(teamId: string): Promise<WorkingCalendar | null> {
      const row = await models.businessHours.findOne({ _id: teamId }).lean<BusinessHoursDoc>();
      return row?.enabled ? row : null;
    },
  };
}
export type BusinessHoursRules = ReturnType<typeof businessHoursRules>;
