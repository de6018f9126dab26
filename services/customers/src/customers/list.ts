import type { ListCustomersQuery, Page } from '@helpdesk/contracts';
import { escapeRegex, findPage, scoped, type RequestContext, type ScopedFilter } from '@helpdesk/kit';
import type { CustomerDoc } from './model';
import type { CustomerStore, KnownStatuses } from './port';
import { customerView, type CustomerView } from './view';

/** `sort`: a saved view's order (docs/adr/0035); newest first otherwise. */
export async function listCustomers(
  { models, statuses }: Pick<CustomerStore, 'models'> & { statuses: KnownStatuses },
  ctx: RequestContext,
  q: ListCustomersQuery,
  sort?: Record<string, 1 | -1>,
): Promise<Page<CustomerView>> {
  const db = scoped(models, ctx);
  const filter: ScopedFilter<CustomerDoc> = {};
  if (q.status !== undefined) {
    await statuses.assertKnown(ctx, q.status, 'status');
    filter.status = q.status;
  }
  if (q.sentiment) filter.sentiment = q.sentiment;
  const search = q.search?.trim();
  if (search) {
    const re = { $regex: escapeRegex(search), $options: 'i' };
    filter.$or = [{ name: re }, { email: re }];
  }
  const { rows, pagination } = await findPage(db.customers, filter, q, { sort });
  return { data: rows.map(customerView), pagination };
}
