import { z } from 'zod';
import { paginationFields } from '@helpdesk/kit';

export const ADD_MAX = 100;
const customerIdField = z.string().min(1).max(100);

/** One of `customerId` or `customerIds` (1 to 100); the service checks that exactly one is given. */
export const addMembersSchema = z.strictObject({
  customerId: customerIdField.optional(),
  customerIds: z.array(customerIdField).min(1).max(ADD_MAX).optional(),
});
export type AddMembersInput = z.infer<typeof addMembersSchema>;

export const listMembersQuery = z.strictObject({ ...paginationFields(25, 100) });
export type ListMembersQuery = z.infer<typeof listMembersQuery>;

export const removeMemberQuery = z.strictObject({ customerId: customerIdField });
export type RemoveMemberQuery = z.infer<typeof removeMemberQuery>;
