import mongoose from 'mongoose';
import { teamTenancyPlugin } from '@helpdesk/kit';
import type { WorkingCalendar } from './working-time';

/**
 * Ticketing's projection of each team's business hours (one row per team, both partitions: the
 * workspace keeps them per team), fed by `business_hours.updated`. `asOf` is the event's time: an
 * older event never overwrites a newer one.
 */
export interface BusinessHoursDoc extends WorkingCalendar {
  _id: string;
  enabled: boolean;
  asOf: Date;
}

const schema = new mongoose.Schema<BusinessHoursDoc>(
  {
    _id: { type: String, required: true },
    enabled: { type: Boolean, required: true },
    timezone: { type: String, required: true },
    schedule: { type: mongoose.Schema.Types.Mixed, required: true },
    holidays: { type: [String], default: [] },
    asOf: { type: Date, required: true },
  },
  { collection: 'business_hours', versionKey: false, strict: 'throw' },
);
// One row per team: its _id is the team's id.
schema.plugin(teamTenancyPlugin, { key: '_id' });

export type BusinessHoursModel = mongoose.Model<BusinessHoursDoc>;

export function businessHoursModel(conn: mongoose.Connection): BusinessHoursModel {
  return (conn.models.BusinessHours as BusinessHoursModel | undefined) ?? conn.model<BusinessHoursDoc>('BusinessHours', schema);
}
