import type mongoose from 'mongoose';
import type { ListWebhooksQuery, Page, WebhookSnapshot } from '@helpdesk/contracts';
import { findPage, foundOr404, scoped, type RequestContext, type Scope, type ScopedFilter } from '@helpdesk/kit';
import type { WebhookDoc } from './model';
import type { WebhookStore } from './port';
import { webhookSnapshot } from './view';

type Models = Pick<WebhookStore, 'models'>;

export async function findWebhookOr404({ models }: Models, scope: Scope, id: string, session?: mongoose.ClientSession): Promise<WebhookDoc> {
  return foundOr404(scoped(models, scope).webhooks.findOne({ _id: id }).session(session ?? null).lean<WebhookDoc>(), 'webhook', id);
}

export async function listWebhooks({ models }: Models, ctx: RequestContext, q: ListWebhooksQuery): Promise<Page<WebhookSnapshot>> {
  const filter: ScopedFilter<WebhookDoc> = {};
  if (q.isActive !== undefined) filter.isActive = q.isActive;
  const { rows, pagination } = await findPage(scoped(models, ctx).webhooks, filter, q);
  return { data: rows.map(webhookSnapshot), pagination };
}

export async function getWebhook(deps: Models, ctx: RequestContext, id: string): Promise<WebhookSnapshot> {
  return webhookSnapshot(await findWebhookOr404(deps, ctx, id));
}
