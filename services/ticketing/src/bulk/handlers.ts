import { createTicketBody, TICKETING_BULK_INTERNAL, updateTicketBody, type ImportRow } from '@helpdesk/contracts';
import { ApiError, eachId, exportPage, handlersFor, importRows, mapConcurrently, parseInput, scoped, type ServiceDeps } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import type { CustomerClient } from '../customer-refs/rules';
import { createTickets, type CreateTicketsDeps } from '../tickets/create-many';
import { removeTicket } from '../tickets/remove';
import { updateTicket, type UpdateTicketDeps } from '../tickets/update';
import type { TicketDoc } from '../tickets/model';
import { ticketView } from '../tickets/view';

/** What a ticket's public JSON never shows. */
const HIDDEN = { searchText: 0, searchTokens: 0, titleTokens: 0, customerName: 0, customerEmail: 0, rev: 0 } as const;

/** An imported ticket's match key (docs/adr/0037): the source product's id, kept as `metadata.externalId` (a string). */
const externalIdOf = (row: ImportRow) => {
  const meta = row.data.metadata as Record<string, unknown> | undefined;
  return typeof meta?.externalId === 'string' ? meta.externalId : null;
};

/**
 * `/internal/{bulk,export,import}/tickets` (docs/adr/0036, 0037): every ticket goes through the
 * ticket rules (PATCH, DELETE, create), with their validation and events, exactly as one request.
 */
export const ticketBulkHandlers = (deps: CreateTicketsDeps & UpdateTicketDeps & { customers: CustomerClient }, { models }: ServiceDeps<TicketingModels>) =>
  handlersFor(TICKETING_BULK_INTERNAL)({
    bulkTickets: async ({ ctx, body, token }) => {
      const calls = deps.customers.forRequest(token, ctx.requestId);
      if (body.action === 'delete') return eachId(body.ids, (id) => removeTicket(deps, ctx, id));
      const data = parseInput(updateTicketBody, body.data ?? {});
      return eachId(body.ids, (id) => updateTicket(deps, ctx, id, data, calls));
    },

    exportTicketsPage: ({ ctx, body }) =>
      exportPage<TicketDoc>(scoped(models, ctx).tickets, body, {
        view: (t) => ticketView(t),
        projection: HIDDEN,
        filterOf: (f) => ({ ...(f.status ? { status: f.status } : {}), ...(f.priority ? { priority: f.priority } : {}) }),
      }),

    importTicketRows: async ({ ctx, body, token }) => {
      const calls = deps.customers.forRequest(token, ctx.requestId);
      const db = scoped(models, ctx);
      /** Rows through the create rule, written in one transaction; a row's refusal in its place. */
      const createRows = async (rows: readonly ImportRow[]) => {
        const parsed = rows.map((row) => {
          const { status, ...fields } = row.data;
          try {
            return { input: parseInput(createTicketBody, fields), status, customer: row.customer ?? null, channel: 'import' };
          } catch (err) {
            if (err instanceof ApiError) return err;
            throw err;
          }
        });
        const valid = parsed.filter((p) => !(p instanceof ApiError)) as Exclude<(typeof parsed)[number], ApiError>[];
        const created = await createTickets(deps, ctx, valid);
        let next = 0;
        const pairs = parsed.map((p) => (p instanceof ApiError ? p : { ...p, ticket: created[next++] }));
        return mapConcurrently(pairs, 4, async (p) => {
          if (p instanceof ApiError) return p;
          const t = p.ticket;
          if (t instanceof ApiError) return t;
          try {
            // A status other than `new` is the PATCH rule's (ticket.updated, ticket.closed, closedAt …).
            if (p.status !== undefined && p.status !== 'new') await updateTicket(deps, ctx, t.id, parseInput(updateTicketBody, { status: p.status }), calls);
          } catch (err) {
            if (err instanceof ApiError && err.status < 500) return err;
            throw err;
          }
          return { id: t.id };
        });
      };
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
            const [answer] = await createRows([row]);
            if (answer instanceof ApiError) throw answer;
            return answer;
          },
          createMany: (rows) => createRows(rows),
          update: async (id, row) => {
            const { messages: _initial, ...fields } = row.data;
            await updateTicket(deps, ctx, id, parseInput(updateTicketBody, fields), calls);
            return { id };
          },
        },
        4,
      );
      return { outcomes };
    },
  });
