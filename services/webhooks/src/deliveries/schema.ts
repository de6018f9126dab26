import { z } from 'zod';
import { isKnownEventType } from '@helpdesk/contracts';
import { paginationFields } from '@helpdesk/kit';
import { DELIVERY_STATUSES } from './model';

export const listDeliveriesQuery = z.strictObject({
  status: z.enum(DELIVERY_STATUSES).optional(),
  eventType: z.string().refine(isKnownEventType, { message: 'must be a known event type' }).optional(),
  ...paginationFields(20, 100),
});
export type ListDeliveriesQuery = z.infer<typeof listDeliveriesQuery>;

/** Redelivery takes no parameters. */
export const redeliverSchema = z.strictObject({});
