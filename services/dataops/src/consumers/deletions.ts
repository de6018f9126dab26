import type { BulkResource, Partition } from '@helpdesk/contracts';
import { on, scoped, type Collection, type Subscription } from '@helpdesk/kit';
import type { TombstoneModel } from '../export/model';

/** The deletions the incremental export reports, one subscription per owning resource. */
export function tombstoneSubscriptions(models: { tombstones: Collection<'team-and-partition', TombstoneModel> }): Subscription[] {
  const record = (e: { id: string; teamId: string; mode: Partition; occurredAt: string }, resource: BulkResource, recordId: string) =>
    scoped(models, e)
      .tombstones.updateOne({ _id: e.id }, { $setOnInsert: { resource, recordId, deletedAt: new Date(e.occurredAt), recordedAt: new Date() } }, { upsert: true })
      .then(() => undefined);
  return [
    on('ticket.deleted', (e) => record(e, 'tickets', e.data.ticketId)),
    on('customer.deleted', (e) => record(e, 'customers', e.data.customerId)),
    on('article.deleted', (e) => record(e, 'articles', e.data.articleId)),
  ];
}
