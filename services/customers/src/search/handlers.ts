import { CUSTOMERS_SEARCH_INTERNAL, SORT_FIELD_COLUMNS } from '@helpdesk/contracts';
import { handlersFor, rankedSearch, rewriteTagEverywhere, scoped, tagCounts, viewSortOf } from '@helpdesk/kit';
import { customerSearchTokens, type CustomerDoc } from '../customers/model';
import type { CustomersModels } from '../collections';
import type { CustomersRules } from '../rules';

/**
 * The customers service's part of search, tags and saved views (docs/adr/0034, 0035), asked by
 * dataops with the caller's token. A customer matches on its name or email only (a title match):
 * its internal notes are never searched.
 */
export const customerSearchHandlers = ({ customers }: CustomersRules, models: CustomersModels) =>
  handlersFor(CUSTOMERS_SEARCH_INTERNAL)({
    searchCustomersInternal: ({ ctx, query }) =>
      rankedSearch<CustomerDoc>(
        scoped(models, ctx).customers,
        {
          titleTokensField: 'searchTokens',
          projection: { name: 1, email: 1 },
          titleOf: (c) => c.name,
          bodyOf: () => null,
          tokensOf: customerSearchTokens,
          tokenSources: { name: 1, email: 1 },
        },
        query,
      ),
    listCustomerTagsInternal: async ({ ctx, query }) => ({ tags: await tagCounts(scoped(models, ctx).customers, query) }),
    rewriteCustomerTagInternal: ({ ctx, body }) => rewriteTagEverywhere(scoped(models, ctx).customers, body, (id, tags) => customers.update(ctx, id, { tags })),
    listCustomersForView: ({ ctx, query }) => customers.list(ctx, query, viewSortOf(query, SORT_FIELD_COLUMNS)),
  });
