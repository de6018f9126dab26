import type { UpdateTicketStatusInput } from '@helpdesk/contracts';
import { notFound, type RequestContext } from '@helpdesk/kit';
import { fieldChanges, givenFields } from '../field-changes';
import type { StatusEntry } from '../model';
import type { SettingsRules } from '../rules';
import { statusesInOrder, statusView } from './view';

/** The ticket statuses' labels, colours and order (docs/adr/0014). */
export function statusRules(settings: SettingsRules) {
  return {
    list: async (ctx: RequestContext) => statusesInOrder((await settings.read(ctx)).ticketStatuses),

    async update(ctx: RequestContext, key: string, input: UpdateTicketStatusInput) {
      const entryOf = (list: StatusEntry[]) => list.find((s) => s.key === key)!;
      return settings.change(
        ctx,
        (cur, c) => {
          const entry = cur.ticketStatuses.find((s) => s.key === key);
          if (!entry) throw notFound('ticket status', key);
          const next = { ...entry, ...givenFields(input) };
          c.change('ticketStatuses', cur.ticketStatuses.map((s) => (s.key === key ? next : s)));
        },
        (doc, _changes, previous) => ({
          type: 'ticket_status.updated',
          data: { status: statusView(entryOf(doc.ticketStatuses)), ...fieldChanges(entryOf(previous.ticketStatuses as StatusEntry[]), entryOf(doc.ticketStatuses)) },
        }),
        (doc) => statusView(entryOf(doc.ticketStatuses)),
      );
    },
  };
}
