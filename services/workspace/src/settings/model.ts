import mongoose from 'mongoose';
import type { FeatureFlag, Partition } from '@helpdesk/contracts';
import { tenancyPlugin } from '@helpdesk/kit';

export interface StatusEntry {
  key: string;
  label: string;
  color: string;
  position: number;
}
export interface DaySlotDoc {
  enabled: boolean;
  start: string;
  end: string;
}
export interface BusinessHoursDoc {
  enabled: boolean;
  timezone: string;
  schedule: Record<string, DaySlotDoc>;
  holidays: { date: string; name: string | null }[];
}
export interface WidgetDoc {
  position: string;
  primaryColor: string;
  greeting: string;
  allowedOrigins: string[];
}

/**
 * A team's settings: one document per team (team-wide, ../collections.ts), made with the
 * team's owner. Each settings resource of the API is a part of it.
 */
export interface SettingsDoc {
  _id: mongoose.Types.ObjectId;
  teamId: string;
  mode: Partition;
  teamName: string;
  teamSlug: string;
  defaultTimezone: string;
  defaultLanguage: string;
  supportEmail: string | null;
  autoCloseResolvedAfterDays: number | null;
  featureFlags: Record<FeatureFlag, boolean>;
  ticketStatuses: StatusEntry[];
  businessHours: BusinessHoursDoc;
  widget: WidgetDoc;
  createdAt: Date;
  updatedAt: Date;
}

const settingsSchema = new mongoose.Schema<SettingsDoc>(
  {
    teamName: { type: String, required: true },
    teamSlug: { type: String, required: true },
    defaultTimezone: { type: String, required: true },
    defaultLanguage: { type: String, required: true },
    supportEmail: { type: String, default: null },
    autoCloseResolvedAfterDays: { type: Number, default: null },
    featureFlags: { type: mongoose.Schema.Types.Mixed, required: true },
    ticketStatuses: { type: mongoose.Schema.Types.Mixed, required: true },
    businessHours: { type: mongoose.Schema.Types.Mixed, required: true },
    widget: { type: mongoose.Schema.Types.Mixed, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'settings', versionKey: false, minimize: false, strict: 'throw' },
);
settingsSchema.plugin(tenancyPlugin);
settingsSchema.index({ teamId: 1, mode: 1 }, { unique: true });
// A slug names one team across the whole platform.
settingsSchema.index({ teamSlug: 1 }, { unique: true });

export type SettingsModel = mongoose.Model<SettingsDoc>;

export function settingsModel(conn: mongoose.Connection): SettingsModel {
  return (conn.models.Settings as SettingsModel | undefined) ?? conn.model<SettingsDoc>('Settings', settingsSchema);
}
