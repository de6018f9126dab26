import { createTicketBody, TICKETING_BULK_INTERNAL, updateTicketBody, type ImportRow } from '@helpdesk/contracts';
import { eachId, exportPage, handlersFor, importRows, parseInput, scoped, type ServiceDeps } from '@helpdesk/kit';
import type { TicketingModels } from '../models';
import type { TicketingRules } from '../rules';
import type { TicketDoc } from '../tickets/model';
import { ticketView } from '../tickets/view';

/** What a ticket's public JSON never shows. */
const HIDDEN = { searchText: 0, customerName: 0, customerEmail: 0, rev: 0 } as const;

/** An imported ticket's match key (docs/adr/0037): the source product's id, kept as `metadata.externalId` (a string). */
const externalIdOf = (row: ImportRow) => {
  const meta = row.data.metadata as Record<string, unknown> | undefined;
  return typeof meta?.externalId === 'string' ? meta.externalId : null;
};

/**
 * `/internal/{bulk,export,import}/tickets` (docs/adr/0036, 0037): every ticket goes through the
 * ticket rules (PATCH, DELETE, create), with their validation and events, exactly as one request.
 */
export const ticketBulkHandlers = ({ tickets, customers }: TicketingRules, { models }: ServiceDeps<TicketingModels>) =>
  handlersFor(TICKETING_BULK_INTERNAL)({
    bulkTickets: async ({ ctx, body, token }) => {
      const calls = customers.forRequest(token, ctx.requestId);
      if (body.action === 'delete') return eachId(body.ids, (id) => tickets.remove(ctx, id));
      const data = parseInput(updateTicketBody, body.data ?? {});
      return eachId(body.ids, (id) => tickets.update(ctx, id, data, calls));
    },

    exportTicketsPage: ({ ctx, body }) =>
      exportPage<TicketDoc>(scoped(models, ctx).tickets, body, {
        view: (t) => ticketView(t),
        projection: HIDDEN,
        filterOf: (f) => ({ ...(f.status ? { status: f.status } : {}), ...(f.priority ? { priority: f.priority } : {}) }),
      }),

    importTicketRows: async ({ ctx, body, token }) => {
      const calls = customers.forRequest(token, ctx.requestId);
      const db = scoped(models, ctx);
      const outcomes = await importRows(
        body.rows,
        body.mergeStrategy,
        {
          match: async (row) => {
            const ext = externalIdOf(row);
            if (!ext) return null;
            const found = await db.tickets.findOne({ 'metadata.externalId': ext }, { _id: 1 }).lean<{ _id: string }>();
            return found?._id ?? null;
          },
          matchLabel: (row) => `the ticket with externalId '${externalIdOf(row) ?? ''}'`,
          create: async (row) => {
            const { status, ...fields } = row.data;
            const input = parseInput(createTicketBody, fields);
            const t = await tickets.create(ctx, input, calls, { channel: 'import', customer: row.customer ?? null });
            // A status other than `new` is the PATCH rule's (ticket.updated, ticket.closed, closedAt …).
            if (status !== undefined && status !== 'new') await tickets.update(ctx, t.id, parseInput(updateTicketBody, { status }), calls);
            return { id: t.id };
          },
          update: async (id, row) => {
            const { messages: _initial, ...fields } = row.data;
            await tickets.update(ctx, id, parseInput(updateTicketBody, fields), calls);
            return { id };
          },
        },
        4,
      );
      return { outcomes };
    },
  });
