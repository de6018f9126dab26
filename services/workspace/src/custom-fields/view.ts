import type { CustomFieldSnapshot } from '@helpdesk/contracts';
import type { Unscoped } from '@helpdesk/kit';
import type { CustomFieldDoc } from './model';

/** The spec's Custom field definition. */
export const customFieldView = (f: Unscoped<CustomFieldDoc>): CustomFieldSnapshot => ({
  id: f._id,
  object: 'custom_field',
  contentType: f.contentType,
  label: f.label,
  fieldType: f.fieldType,
  defaultValue: f.defaultValue ?? null,
  options: f.options ? [...f.options] : null,
  minValue: f.minValue ?? null,
  maxValue: f.maxValue ?? null,
  required: f.required,
  sortOrder: f.sortOrder,
  createdAt: new Date(f.createdAt).toISOString(),
});

/** Display order: record type as the spec lists them, then sortOrder, then creation. */
export const DISPLAY_ORDER = { sortOrder: 1, createdAt: 1, _id: 1 } as const;
