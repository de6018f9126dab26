import { teamAndPartition, teamWide } from '@helpdesk/kit';
import type mongoose from 'mongoose';
import { mailModel } from './mail/model';
import { teamMemberModel } from './members/model';
import { notificationModel } from './notifications/model';

/**
 * Every collection of the service, declared once with its kind (kit's data layer, docs/adr/0065);
 * kit builds their indexes at start-up. Reached through `scoped(models, scope)`; the mail worker
 * sends due mail of every team through `acrossTeams(models).mails`.
 */
export const notificationsModels = (conn: mongoose.Connection) => ({
  members: teamWide(teamMemberModel(conn)),
  notifications: teamAndPartition(notificationModel(conn)),
  mails: teamAndPartition(mailModel(conn)),
});
export type NotificationsModels = ReturnType<typeof notificationsModels>;
