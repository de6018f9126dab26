import { DATAOPS, SEARCH_TYPES, type SearchHits, type SearchResult, type SearchType } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import { requirePermissions, VIEW_PERMISSION } from '../access';
import type { DataopsRules } from '../rules';

/** Best first: score (exact title 3, title 2, body 1), then the most recently updated, then id (a stable order). */
const byRank = (a: SearchResult, b: SearchResult) => b.score - a.score || b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id);

/**
 * `GET /search` (docs/adr/0034): asks each selected type's owning service for its best `limit` hits
 * at once, then merges them by the one ranking rule and keeps the best `limit`.
 */
export const searchHandlers = ({ owners }: DataopsRules) =>
  handlersFor(DATAOPS)({
    search: async ({ ctx, query, token }) => {
      const types = query.types ?? [...SEARCH_TYPES];
      requirePermissions(ctx, types.map((t) => VIEW_PERMISSION[t]));
      const input = { query: { q: query.q, limit: String(query.limit) } };
      const ask: Record<SearchType, () => Promise<SearchHits | null>> = {
        tickets: () => owners.ticketing.forRequest(token, ctx.requestId).call('searchTicketsInternal', input),
        customers: () => owners.customers.forRequest(token, ctx.requestId).call('searchCustomersInternal', input),
        articles: () => owners.knowledge.forRequest(token, ctx.requestId).call('searchArticlesInternal', input),
      };
      const answers = await Promise.all(types.map(async (type) => ({ type, found: await ask[type]() })));
      const results = answers.flatMap(({ type, found }) => (found?.hits ?? []).map((h) => ({ type, ...h })));
      return {
        results: results.sort(byRank).slice(0, query.limit),
        total: answers.reduce((n, a) => n + (a.found?.total ?? 0), 0),
        query: query.q,
      };
    },
  });
