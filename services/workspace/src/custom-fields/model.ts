import mongoose from 'mongoose';
import { CUSTOM_FIELD_CONTENT_TYPES, CUSTOM_FIELD_TYPES, type CustomFieldContentType, type CustomFieldType, type Partition } from '@helpdesk/contracts';
import { tenancyPlugin } from '@helpdesk/kit';

/** A custom field definition (under the team scope, docs/adr/0022). `rev` orders its events. */
export interface CustomFieldDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  contentType: CustomFieldContentType;
  label: string;
  fieldType: CustomFieldType;
  defaultValue: string | number | boolean | null;
  options: string[] | null;
  minValue: number | null;
  maxValue: number | null;
  required: boolean;
  sortOrder: number;
  rev: number;
  createdAt: Date;
  updatedAt: Date;
}

const schema = new mongoose.Schema<CustomFieldDoc>(
  {
    _id: { type: String, required: true },
    contentType: { type: String, enum: CUSTOM_FIELD_CONTENT_TYPES, required: true },
    label: { type: String, required: true },
    fieldType: { type: String, enum: CUSTOM_FIELD_TYPES, required: true },
    defaultValue: { type: mongoose.Schema.Types.Mixed, default: null },
    options: { type: [String], default: null },
    minValue: { type: Number, default: null },
    maxValue: { type: Number, default: null },
    required: { type: Boolean, required: true },
    sortOrder: { type: Number, required: true },
    rev: { type: Number, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'custom_fields', versionKey: false, strict: 'throw' },
);
schema.plugin(tenancyPlugin);
schema.index({ teamId: 1, mode: 1, contentType: 1, sortOrder: 1, createdAt: 1 });

export type CustomFieldModel = mongoose.Model<CustomFieldDoc>;

export function customFieldModel(conn: mongoose.Connection): CustomFieldModel {
  return (conn.models.CustomField as CustomFieldModel | undefined) ?? conn.model<CustomFieldDoc>('CustomField', schema);
}
