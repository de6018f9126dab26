import { on, type Subscription } from '@helpdesk/kit';
import type { InboundEmailRules } from './rules';

/** The team's name and support address, the From of reply mails (docs/adr/0041). */
export const inboundEmailConsumers = (inboundEmail: InboundEmailRules): Subscription[] => [on('settings.updated', (e) => inboundEmail.applySettings(e))];
