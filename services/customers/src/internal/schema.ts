import { z } from 'zod';
import { EMAIL_MAX } from '../customers/schema';
import { nameField } from '@helpdesk/kit';

/** `GET /internal/customers?email=`: the one lookup by email (case-insensitive, exact address). */
export const findByEmailQuery = z.strictObject({ email: z.string().min(1).max(EMAIL_MAX) });

/** `POST /internal/customers`: a customer known only by name. */
export const createImplicitSchema = z.strictObject({ name: nameField() });
