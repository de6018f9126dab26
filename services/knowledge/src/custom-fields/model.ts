import mongoose from 'mongoose';
import { CUSTOM_FIELD_TYPES, type CustomFieldRule } from '@helpdesk/contracts';
import { tenancyPlugin } from '@helpdesk/kit';

/**
 * The knowledge service's projection of the team's article custom field definitions, fed by `custom_field.*`
 * events (docs/adr/0022): what checking an article's `customFields` needs. Per team (the live scope,
 * as the workspace service keeps them); `rev` orders events; `deleted` is a tombstone.
 */
export interface CustomFieldDefDoc extends Omit<CustomFieldRule, 'id'> {
  _id: string;
  teamId: string;
  mode: 'test' | 'live';
  rev: number;
  deleted: boolean;
}

const schema = new mongoose.Schema<CustomFieldDefDoc>(
  {
    _id: { type: String, required: true },
    fieldType: { type: String, enum: CUSTOM_FIELD_TYPES, required: true },
    options: { type: [String], default: null },
    minValue: { type: Number, default: null },
    maxValue: { type: Number, default: null },
    required: { type: Boolean, required: true },
    defaultValue: { type: mongoose.Schema.Types.Mixed, default: null },
    rev: { type: Number, required: true },
    deleted: { type: Boolean, required: true },
  },
  { collection: 'custom_field_defs', versionKey: false, strict: 'throw' },
);
schema.plugin(tenancyPlugin);

export type CustomFieldDefModel = mongoose.Model<CustomFieldDefDoc>;

export function customFieldDefModel(conn: mongoose.Connection): CustomFieldDefModel {
  return (conn.models.CustomFieldDef as CustomFieldDefModel | undefined) ?? conn.model<CustomFieldDefDoc>('CustomFieldDef', schema);
}
