import type { EventData, EventEnvelope } from '@helpdesk/contracts';
import { scoped } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
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
      await scoped(models, { teamId: event.teamId })
        .businessHours.updateOne({ asOf: { $lte: asOf } }, { $set: row }, { upsert: true })
        .catch((err: { code?: number }) => {
          // A newer row exists: the upsert's insert collided with it, and the newer row stays.
          if (err.code !== 11000) throw err;
        });
    },

    /** The calendar to count in, or null when every hour counts (business hours off or never set). */
    async calendarOf(teamId: string): Promise<WorkingCalendar | null> {
      const row = await scoped(models, { teamId }).businessHours.findOne({}).lean<BusinessHoursDoc>();
      return row?.enabled ? row : null;
    },
  };
}
export type BusinessHoursRules = ReturnType<typeof businessHoursRules>;
