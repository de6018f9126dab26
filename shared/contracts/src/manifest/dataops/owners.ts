import { COMMUNITY_SEARCH_INTERNAL } from '../community/dataops';
import { CUSTOMERS_BULK_INTERNAL, CUSTOMERS_SEARCH_INTERNAL } from '../customers/dataops';
import { KNOWLEDGE_BULK_INTERNAL, KNOWLEDGE_SEARCH_INTERNAL } from '../knowledge/dataops';
import { TICKETING_BULK_INTERNAL, TICKETING_SEARCH_INTERNAL } from '../ticketing/dataops';

/** The owning services' dataops operations, as dataops reaches them. */

/** dataops' view of them, by resource. */
export const BULK_INTERNAL_BY_RESOURCE = {
  tickets: { service: 'ticketing', ops: TICKETING_BULK_INTERNAL, bulk: 'bulkTickets', exportPage: 'exportTicketsPage', importRows: 'importTicketRows' },
  customers: { service: 'customers', ops: CUSTOMERS_BULK_INTERNAL, bulk: 'bulkCustomers', exportPage: 'exportCustomersPage', importRows: 'importCustomerRows' },
  articles: { service: 'knowledge', ops: KNOWLEDGE_BULK_INTERNAL, bulk: 'bulkArticles', exportPage: 'exportArticlesPage', importRows: 'importArticleRows' },
} as const;

export const SEARCH_INTERNAL = { ...TICKETING_SEARCH_INTERNAL, ...CUSTOMERS_SEARCH_INTERNAL, ...KNOWLEDGE_SEARCH_INTERNAL, ...COMMUNITY_SEARCH_INTERNAL };
