import { z } from 'zod';
import { paginationFields } from '@helpdesk/kit';
import { CONTENT_MAX, nameField } from '../tickets/schema';

/** POST a message: `ai` is accepted only at ticket creation, so it is not in this enum. */
export const addMessageSchema = z.strictObject({
  content: z
    .string()
    .max(CONTENT_MAX)
    .refine((s) => s.trim().length > 0, { message: 'must not be empty' }),
  sender: z.enum(['agent', 'customer', 'system']).optional(),
  senderName: nameField.nullable().optional(),
  messageType: z.enum(['internal', 'public']).optional(),
  isInternal: z.boolean().optional(),
});
export type AddMessageInput = z.infer<typeof addMessageSchema>;

/** The thread is paginated like every list, but a page holds up to 100 messages by default. */
export const listMessagesQuery = z.strictObject({ ...paginationFields(100, 100) });
