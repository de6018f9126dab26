import { CUSTOMERS_WIDGET_INTERNAL } from '@helpdesk/contracts';
import { ApiError, handlersFor } from '@helpdesk/kit';
import type { CustomersRules } from '../rules';

/**
 * `/internal/widget-sign-ups` (docs/adr/0040): a visitor of the chat widget gives a name and an email.
 * The customer with that email (case-insensitive) is theirs, whatever its status; otherwise a new one
 * is made `pending` (the email is not confirmed yet; the first confirmed sign-in makes it `active`).
 * Two sign-ups with one new email at once: the loser of the insert finds the winner's customer.
 */
export const widgetSignUpHandlers = ({ customers }: CustomersRules) =>
  handlersFor(CUSTOMERS_WIDGET_INTERNAL)({
    signUpWidgetCustomer: async ({ ctx, body }) => {
      const found = await customers.findByEmail(ctx, body.email);
      if (found) return { customer: found, created: false };
      try {
        return { customer: await customers.createPending(ctx, body.name, body.email), created: true };
      } catch (err) {
        if (!(err instanceof ApiError) || err.code !== 'resource_conflict') throw err;
        const winner = await customers.findByEmail(ctx, body.email);
        if (!winner) throw err;
        return { customer: winner, created: false };
      }
    },
  });
