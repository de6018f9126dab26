import { on, type Subscription } from '@helpdesk/kit';
import type { InboundEmailRules } from '../inbound-email/rules';

/** The team's name and support address, the From of reply mails (docs/adr/0041). */
export const settingsEventConsumers = (inboundEmail: Pick<InboundEmailRules, 'applySettings'>): Subscription[] => [on('settings.updated', (e) => inboundEmail.applySettings(e))];
