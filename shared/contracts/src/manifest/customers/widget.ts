import { z } from 'zod';
import { customerSnapshotSchema } from '../../catalog/customers';
import { nameField } from '../../fields';
import { defineOperations } from '../operation';
import {
  CONFIRMATION_ATTEMPTS_MAX,
  confirmWidgetEmailBody,
  WIDGET_RULES_DOC,
  WIDGET_TOKEN_RULE_DOC,
  widgetConfirmationSchema,
  widgetConversationParams,
  widgetConversationQuery,
  widgetOperation,
} from '../ticketing/widget';
import { EMAIL_MAX } from './customers';

/** The customers service's side of the chat widget (docs/adr/0040): a visitor's email confirmation and sign-up. */

export const WIDGET_CONFIRMATION = defineOperations({
  confirmWidgetEmail: {
    ...widgetOperation,
    service: 'ticketing',
    method: 'POST',
    path: '/teams/{teamId}/widget/conversations/{conversationId}/confirmation',
    summary: 'Confirm the visitor\'s email with the code mailed to it (a pending customer becomes active)',
    description:
      'A conversation started with an email no customer had signs up a `pending` customer and mails a code of 8 letters and digits ' +
      '(valid 24 hours) to that email; the visitor types it into the widget. The right code makes the customer `active` (their first ' +
      'confirmed sign-in) and the conversation\'s `awaitingEmailConfirmation` false. A wrong or expired code is 400 `parameter_invalid` ' +
      `(param \`code\`); after ${CONFIRMATION_ATTEMPTS_MAX} wrong codes the code is spent (a new conversation mails a new one). Nothing to ` +
      'confirm (the customer was known, or is confirmed already): 400 `parameter_invalid` (param `code`).' +
      WIDGET_TOKEN_RULE_DOC +
      ' ' +
      WIDGET_RULES_DOC,
    params: widgetConversationParams,
    query: widgetConversationQuery,
    body: confirmWidgetEmailBody,
    success: { status: 200, data: widgetConfirmationSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid', 'invalid_json', 'resource_not_found'],
  },
});
/** The customers service's side of a widget sign-up. */
export const CUSTOMERS_WIDGET_INTERNAL = defineOperations({
  signUpWidgetCustomer: {
    service: 'customers',
    tag: 'Customers',
    keys: 'visitor',
    internal: true,
    method: 'POST',
    path: '/internal/widget-sign-ups',
    summary: 'The customer with this email, or a new `pending` one (sent a confirmation email)',
    permission: null,
    params: {},
    body: z.strictObject({ name: nameField(), email: z.email().max(EMAIL_MAX) }),
    success: { status: 200, data: z.object({ customer: customerSnapshotSchema, created: z.boolean(), confirmationSent: z.boolean() }), shape: 'envelope' },
    errors: ['parameter_invalid'],
  },
  confirmWidgetCustomer: {
    service: 'customers',
    tag: 'Customers',
    keys: 'visitor',
    internal: true,
    method: 'POST',
    path: '/internal/widget-confirmations',
    summary: 'A pending customer\'s confirmation code: the right one makes them active (`confirmed: false`: wrong, expired or spent)',
    permission: null,
    params: {},
    body: z.strictObject({ customerId: z.string(), code: z.string().min(1).max(32) }),
    success: { status: 200, data: z.object({ confirmed: z.boolean(), customer: customerSnapshotSchema.nullable() }), shape: 'envelope' },
    errors: ['parameter_invalid'],
  },
});
