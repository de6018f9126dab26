/**
 * `@helpdesk/client`: the typed client of the Helpdesk API, typed from the OpenAPI document the API
 * manifest generates (`npm run openapi` writes docs/openapi.json and ./schema.d.ts). fetch only: it runs
 * in Node 20 and in browsers.
 *
 *   const hd = createHelpdeskClient({ baseUrl: 'http://127.0.0.1:8080/api/v1', apiKey: 'sk_test_…' });
 *   const ticket = await hd.data(hd.POST('/teams/{teamId}/tickets', { params: { path: { teamId } }, body: { title: 'Printer on fire' }, idempotencyKey: 'order-4711' }));
 *   for await (const t of hd.paginate('/teams/{teamId}/tickets', { params: { path: { teamId }, query: { pageSize: 100 } } })) …
 */
export { createHelpdeskClient, errorOf, unwrap, unwrapPage } from './client';
export type { CallOptions, CallResult, GetBody, HelpdeskClient, HelpdeskClientOptions, ListPath, PathsWith, TypedMethod } from './client';
export { HelpdeskError, retryAfterSeconds } from './errors';
export { dataOf, hasNextPage, paginationOf } from './shapes';
export type { DataOf, ItemOf, Page, Pagination } from './shapes';
export { newIdempotencyKey } from './transport';
export type { FetchLike, QueryValue, RawRequestOptions, RawResponse } from './transport';
export type { components, operations, paths } from './schema';
