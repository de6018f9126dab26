import { on, type Subscription } from '@helpdesk/kit';
import { applyMailIdentity } from '../inbound-email/mail-identity';
import type { TicketingModels } from '../collections';

/** The team's name and support address, the From of reply mails (docs/adr/0041). */
export const settingsEventConsumers = (deps: { models: TicketingModels }): Subscription[] => [on('settings.updated', (e) => applyMailIdentity(deps, e))];
