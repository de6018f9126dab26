import { defineOperations } from '../operation';
import { BULK_INTERNAL_ERRORS, bulkInternalBase, bulkOperationsOf, ensureRequestersAnswer, ensureRequestersBody } from '../dataops/transfer';
import { searchOperationsOf, sortedQuery, VIEW_SORT_FIELDS, viewListOperation } from '../dataops/search';
import { customerSchema, listCustomersQuery } from './customers';

/** What dataops asks the customers service: bulk, export, import and the ticket import's requesters; search, tags and saved-view lists. */
const customers = bulkOperationsOf('customers', 'customers', 'Customers');
export const CUSTOMERS_BULK_INTERNAL = defineOperations({
  bulkCustomers: customers.bulk,
  exportCustomersPage: customers.exportPage,
  importCustomerRows: customers.importRows,
  ensureRequesters: {
    ...bulkInternalBase,
    service: 'customers',
    tag: 'Customers',
    path: '/internal/import/requesters',
    summary: "Ticket import's requesters: each email's customer, found or created (customer.created)",
    // As a ticket naming customerName creates its customer with ticket permissions only.
    permission: null,
    body: ensureRequestersBody,
    success: { status: 200, data: ensureRequestersAnswer, shape: 'envelope' },
    errors: BULK_INTERNAL_ERRORS,
  },
});

const customersSearch = searchOperationsOf('customers', 'customers');
export const listCustomersForViewQuery = listCustomersQuery.extend(sortedQuery(VIEW_SORT_FIELDS.customers));
export const CUSTOMERS_SEARCH_INTERNAL = defineOperations({
  searchCustomersInternal: customersSearch.search,
  listCustomerTagsInternal: customersSearch.tags,
  rewriteCustomerTagInternal: customersSearch.rewriteTag,
  listCustomersForView: viewListOperation('customers', 'customers', listCustomersForViewQuery, customerSchema),
});
