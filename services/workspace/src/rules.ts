import type { ServiceDeps } from '@helpdesk/kit';
import { auditLogRules } from './audit-log/rules';
import { billingRules } from './billing/rules';
import type { BillingProvider } from './billing/provider';
import type Stripe from 'stripe';
import { customFieldRules } from './custom-fields/rules';
import { apiKeyEventRules, teamRules } from './internal/rules';
import { inviteRules } from './invites/rules';
import { memberRules } from './members/rules';
import type { WorkspaceModels } from './collections';
import { businessHoursRules } from './settings/business-hours/rules';
import { featureFlagRules } from './settings/feature-flags/rules';
import { settingsRules } from './settings/rules';
import { statusRules } from './settings/statuses/rules';
import { widgetRules } from './settings/widget/rules';
import { savedViewRules } from './views/rules';
import { sessionRules } from './sessions/rules';
import { signInLinkRules } from './sign-in-links/rules';

/** The service's own settings (main.ts reads them from the environment). */
export interface WorkspaceSettings {
  inviteAcceptUrl: string;
  /** The console's sign-in page sign-in links open (SIGN_IN_URL, docs/adr/0068). */
  signInUrl: string;
  /** Where subscriptions are kept and paid: the local provider, or Stripe (docs/adr/0024). */
  billingProvider: (models: WorkspaceModels) => BillingProvider;
  /** Set with the Stripe provider: verifies and applies its webhook. */
  stripe?: { client: Stripe; webhookSecret: string };
}

/** Every resource's rules, wired once; handlers share them. */
export function workspaceRules({ conn, models, soleInstance }: ServiceDeps<WorkspaceModels>, opts: WorkspaceSettings) {
  const members = memberRules({ conn, models, soleInstance });
  const settings = settingsRules({ conn, models });
  const billing = billingRules({ conn, models, provider: opts.billingProvider(models), stripe: opts.stripe });
  return {
    members,
    settings,
    invites: inviteRules({ conn, models, members, settings, inviteAcceptUrl: opts.inviteAcceptUrl }),
    statuses: statusRules(settings),
    businessHours: businessHoursRules(settings),
    widget: widgetRules(settings),
    featureFlags: featureFlagRules(settings),
    teams: teamRules({ conn, members, settings, billing }),
    apiKeyEvents: apiKeyEventRules({ conn }),
    customFields: customFieldRules({ conn, models }),
    auditLog: auditLogRules({ models, members }),
    billing,
    savedViews: savedViewRules({ conn, models }),
    signInLinks: signInLinkRules({ conn, models, members, settings, signInUrl: opts.signInUrl }),
    sessions: sessionRules({ conn, models, members, settings, billing }),
  };
}
export type WorkspaceRules = ReturnType<typeof workspaceRules>;
