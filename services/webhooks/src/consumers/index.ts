import { on, onEvery, type Subscription } from '@helpdesk/kit';
import type { WebhooksRules } from '../rules';

/**
 * Everything the webhooks service reacts to, in one list: every event, whatever its type, becomes one
 * delivery per active webhook of its team and partition that subscribes to it (de-duplicated with the
 * deliveries in one transaction, so a broker redelivery creates nothing twice).
 */
export const consumers = ({ webhooks, deliveries }: WebhooksRules): Subscription[] => [
  // A member's new role (or their leaving) narrows the webhooks that read as their keys (docs/adr/0066).
  on('member.role_changed', (e) => webhooks.narrowToRole(e.teamId, e.data.member.id, e.data.member.permissions)),
  on('member.removed', (e) => webhooks.narrowToRole(e.teamId, e.data.memberId, [])),
  onEvery('#', (e) => deliveries.deliverEvent(e)),
];
