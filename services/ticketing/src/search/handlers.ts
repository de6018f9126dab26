import { TICKETING_SEARCH_INTERNAL, SORT_FIELD_COLUMNS } from '@helpdesk/contracts';
import { handlersFor, rankedSearch, rewriteTagEverywhere, scoped, tagCounts, viewSortOf } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';
import { inOriginalCase } from './snippets';
import type { CustomerClient } from '../customer-refs/rules';
import { listTickets } from '../tickets/list';
import { ticketSearchTokens, type TicketDoc } from '../tickets/model';
import { updateTicket, type UpdateTicketDeps } from '../tickets/update';

/**
 * Ticketing's part of search, tags and saved views (docs/adr/0034, 0035), asked by dataops with the
 * caller's token. The search text holds the title, the customer's name and every message, internal
 * notes included: dataops asks here only for keys with `view_tickets`, who may read those notes.
 */
export const ticketSearchHandlers = (deps: UpdateTicketDeps & { customers: CustomerClient }, models: TicketingModels) =>
  handlersFor(TICKETING_SEARCH_INTERNAL)({
    searchTicketsInternal: async ({ ctx, query }) =>
      inOriginalCase(
        scoped(models, ctx),
        query.q,
        await rankedSearch<TicketDoc>(
          scoped(models, ctx).tickets,
          {
            titleTokensField: 'titleTokens',
            projection: { title: 1, searchText: 1 },
            tokensOf: ticketSearchTokens,
            tokenSources: { title: 1, searchText: 1 },
            titleOf: (t) => t.title,
            // The search text without its first line (the title): customer name and messages, lowercased
            // (what the words are found in; the snippets shown are cut from the original text, below).
            bodyOf: (t) => t.searchText.slice(t.title.length + 1) || null,
          },
          query,
        ),
      ),
    listTicketTagsInternal: async ({ ctx, query }) => ({ tags: await tagCounts(scoped(models, ctx).tickets, query) }),
    rewriteTicketTagInternal: ({ ctx, body, token }) =>
      rewriteTagEverywhere(scoped(models, ctx).tickets, body, (id, tags) => updateTicket(deps, ctx, id, { tags }, deps.customers.forRequest(token, ctx.requestId))),
    listTicketsForView: ({ ctx, query }) => listTickets(deps, ctx, query, viewSortOf(query, SORT_FIELD_COLUMNS)),
  });
