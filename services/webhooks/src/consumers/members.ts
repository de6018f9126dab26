import { on, type Subscription } from '@helpdesk/kit';
import type { WebhookRules } from '../webhooks/rules';

/** A member's new role (or their leaving) narrows the webhooks that read as their keys (docs/adr/0066). */
export const memberSubscriptions = (webhooks: Pick<WebhookRules, 'narrowToRole'>): Subscription[] => [
  on('member.role_changed', (e) => webhooks.narrowToRole(e.teamId, e.data.member.id, e.data.member.permissions)),
  on('member.removed', (e) => webhooks.narrowToRole(e.teamId, e.data.memberId, [])),
];
