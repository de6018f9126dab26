import type { Subscription } from '@helpdesk/kit';
import type { WebhooksRules } from '../rules';
import { deliverySubscription } from './deliveries';
import { memberSubscriptions } from './members';

/** Everything the webhooks service reacts to, in one list: members' roles, and every event for delivery. */
export const consumers = ({ webhooks, deliveries }: WebhooksRules): Subscription[] => [...memberSubscriptions(webhooks), deliverySubscription(deliveries)];
