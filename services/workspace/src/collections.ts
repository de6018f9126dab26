import { teamAndPartition, teamWide } from '@helpdesk/kit';
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

/**
 * Every collection of the service, declared once with its kind (kit's data layer, docs/adr/0065);
 * kit builds their indexes at start-up. Reached only through `scoped(models, scope)`. Members,
 * invites, settings, custom fields and billing belong to the team, not to a partition (docs/adr/0012):
 * a test key and a live key see the same ones (events keep the caller's own partition).
 */
export const workspaceModels = (conn: mongoose.Connection, auditRetentionDays?: number) => ({
  members: teamWide(memberModel(conn)),
  invites: teamWide(inviteModel(conn)),
  settings: teamWide(settingsModel(conn)),
  customFields: teamWide(customFieldModel(conn)),
  auditEntries: teamAndPartition(auditEntryModel(conn, auditRetentionDays)),
  subscriptions: teamWide(subscriptionModel(conn)),
  portalSessions: teamWide(portalSessionModel(conn)),
  savedViews: teamAndPartition(savedViewModel(conn)),
  signInLinks: teamWide(signInLinkModel(conn)),
  sessions: teamWide(sessionModel(conn)),
});
export type WorkspaceModels = ReturnType<typeof workspaceModels>;
