import { z } from 'zod';
import { customerSnapshotSchema } from '../../catalog/customers';
import { nameField } from '../../fields';
import { defineOperations } from '../operation';
import { EMAIL_MAX } from './customers';

/** The customers service's side of the chat widget (docs/adr/0040): a visitor's sign-up and its email confirmation. */
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
