import { customFieldSubscriptions, type Logger, type Subscription } from '@helpdesk/kit';
import type { TicketingRules } from '../rules';
import { analyticsFactConsumers } from './analytics-facts';
import { articleEventConsumers } from './article-events';
import { automationTriggerConsumers } from './automation-triggers';
import { businessHoursConsumers } from './business-hours-events';
import { customerEventConsumers } from './customer-events';
import { memberEventConsumers } from './member-events';
import { settingsEventConsumers } from './settings-events';

/**
 * Everything ticketing reacts to, in one list, each family in its own file. Each handler is
 * idempotent by itself, so a redelivered event changes nothing twice. The order is the order
 * handlers of one event type run in (automations before the analytics' facts).
 */
export const consumers = (
  { customerRefs, customFields, members, businessHours, automations, analytics, models }: TicketingRules,
  { logger }: { logger: Logger },
): Subscription[] => [
  ...customerEventConsumers(customerRefs, logger),
  // The team's ticket custom field definitions (docs/adr/0022).
  ...customFieldSubscriptions(customFields),
  ...memberEventConsumers(members),
  ...businessHoursConsumers(businessHours),
  // Automations, the AI's articles, the analytics' facts (docs/adr/0028-0030).
  ...automationTriggerConsumers(automations),
  ...articleEventConsumers({ models }),
  ...analyticsFactConsumers(analytics),
  // The team's name and support address for inbound email's replies (docs/adr/0041).
  ...settingsEventConsumers({ models }),
];
