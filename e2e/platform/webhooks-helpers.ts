import { randomBytes } from 'node:crypto';
import type { EventEnvelope } from '@helpdesk/contracts';
import { ApiClient } from '@helpdesk/testing';
import { type TeamKeys, type TestPlatform } from '../support/platform';
import { expectOk } from './helpdesk-helpers';

export { Receiver, type Received, type ReceiverReply, type Responder } from '@helpdesk/testing';
export { verify as octokitVerify } from '@octokit/webhooks-methods';

export const WHK_ID = /^whk_[A-Za-z0-9]{24}$/;
export const DLV_ID = /^dlv_[A-Za-z0-9]{24}$/;
export const EVT_ID = /^evt_[A-Za-z0-9]{24}$/;
export const WEBHOOK_KEYS = ['createdAt', 'events', 'id', 'isActive', 'name', 'updatedAt', 'url'];

/** A team of its own for one test, so no other test's events reach its webhooks. */
export interface Team {
  keys: TeamKeys;
  api: ApiClient;
  live: ApiClient;
  path: string;
}

export async function newTeam(tp: TestPlatform): Promise<Team> {
  const keys = await tp.createTeam();
  return { keys, api: new ApiClient(tp.baseUrl, keys.sk_test), live: new ApiClient(tp.baseUrl, keys.sk_live), path: `/teams/${keys.teamId}` };
}

export async function createWebhook(t: Team, body: Record<string, unknown>, api: ApiClient = t.api): Promise<any> {
  return expectOk(await api.post(`${t.path}/webhooks`, body), 201);
}

export async function createTicket(t: Team, title = 'Printer on fire'): Promise<{ id: string; requestId: string }> {
  const res = await t.api.post(`${t.path}/tickets`, { title });
  const data = expectOk(res, 201);
  return { id: data.id, requestId: res.body.meta.requestId };
}

/** Every webhook.* event the webhooks service publishes, for the file's lifetime. */
export class WebhookEventLog {
  readonly events: EventEnvelope<any>[] = [];

  static async start(tp: TestPlatform): Promise<WebhookEventLog> {
    const log = new WebhookEventLog();
    await tp.observe('webhooks', ['webhook.#'], async (e: EventEnvelope) => {
      log.events.push(e as EventEnvelope<any>);
    });
    return log;
  }

  /** Polls (never a fixed sleep) until an event matching `pred` is in. */
  async waitFor(pred: (e: EventEnvelope<any>) => boolean, what: string, timeoutMs = 10_000): Promise<EventEnvelope<any>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find(pred);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; have ${JSON.stringify(this.events.map((e) => e.type))}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  ofRequest(requestId: string): EventEnvelope<any>[] {
    return this.events.filter((e) => e.requestId === requestId);
  }

  /**
   * Proves nothing was published for a refused request: renames a marker webhook and waits for its
   * webhook.updated; the outbox publishes in commit order, so anything earlier is in by then.
   */
  async settle(t: Team, markerId: string): Promise<void> {
    const res = await t.api.patch(`${t.path}/webhooks/${markerId}`, { name: `marker ${randomBytes(4).toString('hex')}` });
    expectOk(res, 200);
    await this.waitFor((e) => e.requestId === res.body.meta.requestId, 'the marker event');
  }
}

/** The delivery log entry, read through the gateway. */
export async function readDelivery(t: Team, webhookId: string, deliveryId: string): Promise<any> {
  return expectOk(await t.api.get(`${t.path}/webhooks/${webhookId}/deliveries/${deliveryId}`), 200);
}

/** Polls the delivery log until the delivery reaches `status`. */
export async function waitForDelivery(t: Team, webhookId: string, deliveryId: string, status: string, timeoutMs = 10_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = await readDelivery(t, webhookId, deliveryId);
    if (d.status === status) return d;
    if (Date.now() > deadline) throw new Error(`delivery ${deliveryId} is ${d.status}, not ${status}: ${JSON.stringify(d.attempts)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
