import type { CUSTOMERS_WIDGET_INTERNAL } from '@helpdesk/contracts';
import type { InternalCalls } from '@helpdesk/kit';

/** The customers service's widget operations: finds the visitor by email or signs them up as `pending`, and checks their confirmation code. */
export interface WidgetSignUps {
  forRequest(token: string, requestId: string): InternalCalls<typeof CUSTOMERS_WIDGET_INTERNAL>;
}
