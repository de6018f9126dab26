import { PARTITIONS, type Permission } from '@helpdesk/contracts';
import { scoped } from '@helpdesk/kit';
import type { WebhookStore } from './port';

/**
 * A member's role changed (or they left: no permissions): the webhooks that read as their keys, in
 * both partitions, keep only what the new role allows. Narrowing only, so events applied twice or
 * out of order never widen anything; a webhook reads more again only when a key that may is used to
 * save its url or events (docs/adr/0066).
 */
export async function narrowWebhooksToRole({ models }: Pick<WebhookStore, 'models'>, teamId: string, memberId: string, permissions: readonly Permission[]): Promise<void> {
  for (const mode of PARTITIONS) {
    await scoped(models, { teamId, mode }).webhooks.updateMany(
      { 'readAs.memberId': memberId },
      { $pull: { 'readAs.permissions': { $nin: [...permissions] } }, $inc: { rev: 1 } },
    );
  }
}
