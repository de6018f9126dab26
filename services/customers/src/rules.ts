import { customFieldRules, type ServiceDeps } from '@helpdesk/kit';
import { memberRules } from './customer-groups/members/rules';
import { groupRules } from './customer-groups/rules';
import { statusRules } from './customer-statuses/rules';
import { customerRules } from './customers/rules';
import type { CustomersModels } from './collections';
import { widgetSignUpRules } from './widget-sign-ups/rules';

/** Every resource's rules, wired once; handlers and consumers share them. */
export function customersRules({ conn, models, soleInstance }: ServiceDeps<CustomersModels>) {
  const statuses = statusRules({ conn, models });
  const customFields = customFieldRules({ definitions: models.customFieldDefs, records: models.customers, contentType: 'customer', soleInstance });
  const customers = customerRules({ conn, models, statuses, customFields });
  const groups = groupRules({ conn, models });
  const members = memberRules({ conn, models, groups });
  const widgetSignUps = widgetSignUpRules({ conn, models, customers });
  return { statuses, customers, groups, members, customFields, widgetSignUps };
}
export type CustomersRules = ReturnType<typeof customersRules>;
