import { VIEWS, VIEWS_INTERNAL, WIDGET_CONFIG, WORKSPACE, WORKSPACE_INTERNAL, WORKSPACE_SESSIONS, WORKSPACE_SESSIONS_INTERNAL } from '@helpdesk/contracts';
import { defineService, MAX_MICRO_BATCH } from '@helpdesk/kit';
import { consumers } from './consumers';
import { auditLogHandlers } from './audit-log/handlers';
import { billingHandlers, billingInternalHandlers } from './billing/handlers';
import { customFieldHandlers } from './custom-fields/handlers';
import { internalHandlers } from './internal/handlers';
import { inviteHandlers } from './invites/handlers';
import { memberHandlers } from './members/handlers';
import { memberPreferenceHandlers } from './members/preferences/handlers';
import { workspaceModels } from './collections';
import { teamPreferenceHandlers } from './preferences/handlers';
import { workspaceRules, type WorkspaceSettings } from './rules';
import { businessHoursHandlers } from './settings/business-hours/handlers';
import { featureFlagHandlers } from './settings/feature-flags/handlers';
import { settingsHandlers } from './settings/handlers';
import { statusHandlers } from './settings/statuses/handlers';
import { widgetHandlers } from './settings/widget/handlers';
import { savedViewHandlers } from './views/handlers';
import { sessionHandlers, sessionInternalHandlers } from './sessions/handlers';
import { signInLinkInternalHandlers } from './sign-in-links/handlers';

/** Where invitation links point unless configured (`npm start`'s gateway; a real deployment sets its app's page). */
export const DEFAULT_INVITE_ACCEPT_URL = 'http://127.0.0.1:8080/invites/accept';
/** Where the local billing portal's pages are unless configured (`npm start`'s gateway, docs/adr/0024). */
export const DEFAULT_BILLING_PORTAL_URL = 'http://127.0.0.1:8080/billing/portal';
/** The console's sign-in page unless configured (`npm start`'s gateway, docs/adr/0068). */
export const DEFAULT_SIGN_IN_URL = 'http://127.0.0.1:8080/app/sign-in';

/** The workspace service: members, roles, invites, preferences and team settings (docs/adr/0012 to 0014). */
export const workspaceService = (settings: WorkspaceSettings, auditRetentionDays?: number) =>
  defineService({
    name: 'workspace',
    operations: { ...WORKSPACE, ...WORKSPACE_INTERNAL, ...VIEWS, ...VIEWS_INTERNAL, ...WIDGET_CONFIG, ...WORKSPACE_SESSIONS, ...WORKSPACE_SESSIONS_INTERNAL },
    models: (conn) => workspaceModels(conn, auditRetentionDays),
    rules: (deps) => workspaceRules(deps, settings),
    handlers: (rules) => ({
      ...memberHandlers(rules),
      ...memberPreferenceHandlers(rules),
      ...inviteHandlers(rules),
      ...settingsHandlers(rules),
      ...statusHandlers(rules),
      ...businessHoursHandlers(rules),
      ...widgetHandlers(rules),
      ...featureFlagHandlers(rules),
      ...teamPreferenceHandlers(rules),
      ...internalHandlers(rules),
      ...customFieldHandlers(rules),
      ...auditLogHandlers(rules),
      ...billingHandlers(rules),
      ...billingInternalHandlers(rules),
      ...savedViewHandlers(rules),
      ...sessionHandlers(rules),
      ...sessionInternalHandlers(rules),
      ...signInLinkInternalHandlers(rules),
    }),
    consumers,
    // The audit log and members' progress take what is in flight as one batch (docs/adr/0050).
    prefetch: MAX_MICRO_BATCH,
  });
