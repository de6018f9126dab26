import { onEvery, type Subscription } from '@helpdesk/kit';
import type { DeliveryRules } from '../webhooks/deliveries/rules';

/**
 * Every event, whatever its type, becomes one delivery per active webhook of its team and partition
 * that subscribes to it (de-duplicated with the deliveries in one transaction, so a broker
 * redelivery creates nothing twice).
 */
export const deliverySubscription = (deliveries: Pick<DeliveryRules, 'deliverEvent'>): Subscription => onEvery('#', (e) => deliveries.deliverEvent(e));
