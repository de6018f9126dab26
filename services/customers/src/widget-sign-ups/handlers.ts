import { CUSTOMERS_WIDGET_INTERNAL } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { CustomersRules } from '../rules';

/** `/internal/widget-sign-ups` and `/internal/widget-confirmations`, asked by ticketing's widget endpoints (docs/adr/0040). */
export const widgetSignUpHandlers = ({ widgetSignUps }: CustomersRules) =>
  handlersFor(CUSTOMERS_WIDGET_INTERNAL)({
    signUpWidgetCustomer: ({ ctx, body }) => widgetSignUps.signUp(ctx, body.name, body.email),
    confirmWidgetCustomer: ({ ctx, body }) => widgetSignUps.confirm(ctx, body.customerId, body.code),
  });
