import { WEEKDAYS, type UpdateBusinessHoursInput } from '@helpdesk/contracts';
import { parameterInvalid, type RequestContext } from '@helpdesk/kit';
import type { BusinessHoursDoc } from '../model';
import { fieldChanges, givenFields } from '../field-changes';
import type { SettingsRules } from '../rules';
import { businessHoursSettingsView as view, businessHoursView } from './view';

/** The team's opening hours: a weekly schedule in one time zone, and the dates it is closed (docs/adr/0014). */
export function businessHoursRules(settings: SettingsRules) {
  return {
    get: async (ctx: RequestContext) => view((await settings.read(ctx)).businessHours),

    update(ctx: RequestContext, input: UpdateBusinessHoursInput) {
      return settings.change(
        ctx,
        (cur, c) => {
          const b = cur.businessHours;
          const next: BusinessHoursDoc = { ...b, schedule: { ...b.schedule }, holidays: b.holidays };
          if (input.enabled !== undefined) next.enabled = input.enabled;
          if (input.timezone !== undefined) next.timezone = input.timezone;
          for (const day of WEEKDAYS) {
            const patch = input.schedule?.[day];
            if (!patch) continue;
            const slot = { ...b.schedule[day], ...givenFields(patch) };
            // HH:MM compares correctly as text
            if (slot.end <= slot.start) throw parameterInvalid(`schedule.${day}.end`, `Invalid schedule.${day}.end: ${slot.end} is not after start ${slot.start}.`);
            next.schedule[day] = slot;
          }
          if (input.holidays !== undefined) {
            const seen = new Set<string>();
            for (const h of input.holidays) {
              if (seen.has(h.date)) throw parameterInvalid('holidays', `Invalid holidays: ${h.date} is listed twice.`);
              seen.add(h.date);
            }
            next.holidays = input.holidays.map((h) => ({ date: h.date, name: h.name ?? null })).sort((x, y) => x.date.localeCompare(y.date));
          }
          c.change('businessHours', next);
        },
        (doc, _changes, previous) => ({
          type: 'business_hours.updated',
          data: { businessHours: businessHoursView(doc.businessHours), ...fieldChanges(previous.businessHours as BusinessHoursDoc, doc.businessHours) },
        }),
        (doc) => view(doc.businessHours),
      );
    },
  };
}
