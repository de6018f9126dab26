import { onEvery, type Subscription } from '@helpdesk/kit';
import type { WebhooksRules } from '../rules';

/**
 * Everything the webhooks service reacts to, in one list: every event, whatever its type, becomes one
 * delivery per active webhook of its team and partition that subscribes to it (de-duplicated with the
 * deliveries in one transaction, so a broker redelivery creates nothing twice).
 */
export const consumers = ({ deliveries }: WebhooksRules): Subscription[] => [onEvery('#', (e) => deliveries.deliverEvent(e))];
