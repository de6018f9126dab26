import type mongoose from 'mongoose';
import { auditEntryModel } from './audit-log/model';
import { portalSessionModel, subscriptionModel } from './billing/model';
import { customFieldModel } from './custom-fields/model';
import { inviteModel } from './invites/model';
import { memberModel } from './members/model';
import { settingsModel } from './settings/model';
import { savedViewModel } from './views/model';
import { sessionModel } from './sessions/model';
import { signInLinkModel } from './sign-in-links/model';

/** Every model of the service on its connection (kit builds their indexes at start-up). */
export const workspaceModels = (conn: mongoose.Connection, auditRetentionDays?: number) => ({
  members: memberModel(conn),
  invites: inviteModel(conn),
  settings: settingsModel(conn),
  customFields: customFieldModel(conn),
  auditEntries: auditEntryModel(conn, auditRetentionDays),
  subscriptions: subscriptionModel(conn),
  portalSessions: portalSessionModel(conn),
  savedViews: savedViewModel(conn),
  signInLinks: signInLinkModel(conn),
  sessions: sessionModel(conn),
});
export type WorkspaceModels = ReturnType<typeof workspaceModels>;
