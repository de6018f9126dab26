import type { WebhookSnapshot } from '@helpdesk/contracts';
import type { Unscoped } from '@helpdesk/kit';
import type { WebhookDoc } from './model';

export const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : null);

/** The public Webhook (the spec's table without `secret`); events carry the same. */
export function webhookSnapshot(w: Unscoped<WebhookDoc>): WebhookSnapshot {
  return {
    id: w._id,
    name: w.name,
    url: w.url,
    events: [...w.events],
    isActive: w.isActive,
    createdAt: iso(w.createdAt)!,
    updatedAt: iso(w.updatedAt)!,
  };
}
