import { on, type Subscription } from '@helpdesk/kit';
import type { BusinessHoursRules } from '../business-hours/rules';

/** The calendar the SLA clocks count in (docs/adr/0026). */
export const businessHoursConsumers = (businessHours: Pick<BusinessHoursRules, 'apply'>): Subscription[] => [on('business_hours.updated', (e) => businessHours.apply(e))];
