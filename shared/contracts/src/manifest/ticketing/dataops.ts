import { defineOperations } from '../operation';
import { bulkOperationsOf } from '../dataops/transfer';
import { searchOperationsOf, sortedQuery, VIEW_SORT_FIELDS, viewListOperation } from '../dataops/search';
import { listTicketsQuery, ticketSchema } from './tickets';

/** What dataops asks ticketing: bulk, export and import (../dataops/transfer.ts); search, tags and saved-view lists (../dataops/search.ts). */
const tickets = bulkOperationsOf('ticketing', 'tickets', 'Tickets');
export const TICKETING_BULK_INTERNAL = defineOperations({
  bulkTickets: tickets.bulk,
  exportTicketsPage: tickets.exportPage,
  importTicketRows: tickets.importRows,
});

const ticketsSearch = searchOperationsOf('ticketing', 'tickets');
export const listTicketsForViewQuery = listTicketsQuery.extend(sortedQuery(VIEW_SORT_FIELDS.tickets));
export const TICKETING_SEARCH_INTERNAL = defineOperations({
  searchTicketsInternal: ticketsSearch.search,
  listTicketTagsInternal: ticketsSearch.tags,
  rewriteTicketTagInternal: ticketsSearch.rewriteTag,
  listTicketsForView: viewListOperation('ticketing', 'tickets', listTicketsForViewQuery, ticketSchema),
});
