import mongoose from 'mongoose';
import { NOTIFICATION_TYPES, type NotificationType, type Partition } from '@helpdesk/contracts';
import { tenancyPlugin } from '@helpdesk/kit';

/** A stored notification. `_id` is the public `ntf_…` id; it lives in the partition of the event that made it. */
export interface NotificationDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  memberId: string;
  type: NotificationType;
  title: string;
  body: string;
  ticketId: string | null;
  isRead: boolean;
  readAt: Date | null;
  /** The event it was made from: with `memberId`, unique (one notification per event and member, however often it is delivered). */
  sourceEventId: string;
  createdAt: Date;
}

const notificationSchema = new mongoose.Schema<NotificationDoc>(
  {
    _id: { type: String, required: true },
    memberId: { type: String, required: true },
    type: { type: String, enum: NOTIFICATION_TYPES, required: true },
    title: { type: String, required: true },
    body: { type: String, required: true },
    ticketId: { type: String, default: null },
    isRead: { type: Boolean, required: true, default: false },
    readAt: { type: Date, default: null },
    sourceEventId: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { collection: 'notifications', versionKey: false, minimize: false, strict: 'throw' },
);
notificationSchema.plugin(tenancyPlugin);
notificationSchema.index({ teamId: 1, mode: 1, memberId: 1, createdAt: -1, _id: -1 });
notificationSchema.index({ teamId: 1, mode: 1, memberId: 1, isRead: 1 });
notificationSchema.index({ teamId: 1, mode: 1, sourceEventId: 1, memberId: 1 }, { unique: true });

export type NotificationModel = mongoose.Model<NotificationDoc>;

export function notificationModel(conn: mongoose.Connection): NotificationModel {
  return (conn.models.Notification as NotificationModel | undefined) ?? conn.model<NotificationDoc>('Notification', notificationSchema);
}
