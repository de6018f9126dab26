import type mongoose from 'mongoose';
import { mailModel } from './mail/model';
import { teamMemberModel } from './members/model';
import { notificationModel } from './notifications/model';

/** Every model of the service on its connection (kit builds their indexes at start-up). */
export const notificationsModels = (conn: mongoose.Connection) => ({
  members: teamMemberModel(conn),
  notifications: notificationModel(conn),
  mails: mailModel(conn),
});
export type NotificationsModels = ReturnType<typeof notificationsModels>;
