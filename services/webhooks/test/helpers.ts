import { startDetached as detached, startServiceHarness, type Caller, type ServiceHarness } from '@helpdesk/testing';
import { DEFAULT_SETTINGS, startWebhooks, webhooksService, type WebhookSettings, type WebhooksRules } from '../src';

export { call, expectError, TEAM_A, TEAM_B, TEST_INTERNAL_SECRET as SECRET, type Caller, type Reply } from '@helpdesk/testing';

export interface Harness extends ServiceHarness<WebhooksRules> {
  /** Creates a webhook (201 expected) and returns the answer's data, secret included. */
  createWebhook(body: Record<string, unknown>, as?: Caller): Promise<any>;
}

/** The webhooks service (worker included, loopback receivers allowed) on the shared harness; records every webhook.* event. */
export async function startHarness(settings: Partial<WebhookSettings> = {}): Promise<Harness> {
  const h = await startServiceHarness((opts) => startWebhooks({ ...opts, settings: { allowLoopback: true, ...settings } }), { observe: ['webhook.*'] });
  return {
    ...h,
    async createWebhook(body, as) {
      const r = await h.api('POST', '/teams/{team}/webhooks', { body, as });
      if (r.status !== 201) throw new Error(`create webhook: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.data;
    },
  };
}

/** The app with no database behind it. */
export const startDetached = () => detached(webhooksService(DEFAULT_SETTINGS));
