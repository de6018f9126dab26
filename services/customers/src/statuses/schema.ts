import { z } from 'zod';
import { BUILT_IN_CUSTOMER_STATUSES } from '@helpdesk/contracts';

export type BuiltInStatus = (typeof BUILT_IN_CUSTOMER_STATUSES)[number];

/** The built-ins: always listed first, in this order, and never changed or deleted. */
export const BUILT_IN_STATUSES: readonly { key: BuiltInStatus; label: string; color: string; position: number }[] = [
  { key: 'active', label: 'Active', color: '#22c55e', position: 0 },
  { key: 'inactive', label: 'Inactive', color: '#9ca3af', position: 1 },
  { key: 'churned', label: 'Churned', color: '#ef4444', position: 2 },
  { key: 'pending', label: 'Pending', color: '#f59e0b', position: 3 },
];
export const isBuiltInStatus = (key: string): key is BuiltInStatus => (BUILT_IN_CUSTOMER_STATUSES as readonly string[]).includes(key);

export const STATUS_KEY_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const DEFAULT_COLOR = '#6b7280';
/** Team-added statuses sit after the built-ins (positions 0 to 3). */
export const POSITION_MIN = BUILT_IN_STATUSES.length;
export const POSITION_MAX = 10_000;
export const LABEL_MAX = 50;

const labelField = z
  .string()
  .trim()
  .min(1)
  .max(LABEL_MAX);
/** `#rrggbb`, either case; stored lowercase. */
const colorField = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, { message: 'must be a hex color #rrggbb' })
  .transform((c) => c.toLowerCase());
const positionField = z.number().int().min(POSITION_MIN).max(POSITION_MAX);

export const createStatusSchema = z.strictObject({
  key: z.string().regex(STATUS_KEY_RE, { message: "must be 1 to 64 of a-z, 0-9, '_' or '-', starting with a letter or digit" }),
  label: labelField,
  color: colorField.optional(),
  position: positionField.optional(),
});
export type CreateStatusInput = z.infer<typeof createStatusSchema>;

export const updateStatusSchema = z.strictObject({
  label: labelField.optional(),
  color: colorField.optional(),
  position: positionField.optional(),
});
export type UpdateStatusInput = z.infer<typeof updateStatusSchema>;

/** The status list takes no query parameters. */
export const listStatusesQuery = z.strictObject({});
