import { randomBytes } from 'node:crypto';
import type { EventEnvelope } from '@helpdesk/contracts';
import type { TestPlatform } from '../support/platform';

export const CUS_ID = /^cus_[A-Za-z0-9]{24}$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const CUSTOMER_KEYS = ['createdAt', 'customFields', 'email', 'id', 'metadata', 'name', 'notes', 'sentiment', 'status', 'tags', 'ticketCount', 'updatedAt'];
export const GROUP_KEYS = ['createdAt', 'customFields', 'customerCount', 'description', 'externalId', 'id', 'name', 'object', 'slug', 'updatedAt'];

/** Which record an event of the customers service is about (customer id, group id or status key). */
function subjectOf(e: EventEnvelope<any>): string | undefined {
  const d = e.data;
  return d.customer?.id ?? d.customerId ?? d.group?.id ?? d.groupId ?? d.status?.key ?? d.key;
}

/**
 * Collects every event the customers service publishes (customer.*, customer_group.*,
 * customer_status.*), for the file's lifetime, on its own queue of the customers service's bus.
 */
export class CustomerEvents {
  readonly events: EventEnvelope<any>[] = [];
  private constructor(private readonly tp: TestPlatform) {}

  static async start(tp: TestPlatform): Promise<CustomerEvents> {
    const log = new CustomerEvents(tp);
    await tp.observe('customers', ['customer.#', 'customer_group.#', 'customer_status.#'], async (e: EventEnvelope) => {
      log.events.push(e as EventEnvelope<any>);
    });
    return log;
  }

  about(subject: string): EventEnvelope<any>[] {
    return this.events.filter((e) => subjectOf(e) === subject);
  }

  ofRequest(requestId: string): EventEnvelope<any>[] {
    return this.events.filter((e) => e.requestId === requestId);
  }

  /** Polls (never a fixed sleep) until `count` events match; then returns them. */
  async waitFor(match: (e: EventEnvelope<any>) => boolean, count: number, what: string, timeoutMs = 15_000): Promise<EventEnvelope<any>[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.filter(match);
      if (found.length >= count) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} events (${what}); have ${JSON.stringify(found.map((e) => e.type))}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  waitForRequest(requestId: string, count: number): Promise<EventEnvelope<any>[]> {
    return this.waitFor((e) => e.requestId === requestId, count, `request ${requestId}`);
  }

  /**
   * Proves nothing more is coming for earlier requests: makes a marker write (a status, cheap and
   * outside every list the tests count) and waits for its event. The customers outbox publishes in
   * commit order, one queue delivers in order, so anything earlier is in by then.
   */
  async settle(): Promise<void> {
    const res = await this.tp.api.post(`${this.tp.teamPath}/customer-statuses`, { key: `marker-${randomBytes(4).toString('hex')}`, label: 'marker' });
    if (res.status !== 201) throw new Error(`marker not created: ${res.status} ${res.text}`);
    await this.waitForRequest(res.body.meta.requestId, 1);
    const del = await this.tp.api.delete(`${this.tp.teamPath}/customer-statuses/${res.body.data.key}`);
    await this.waitForRequest(del.body.meta.requestId, 1);
  }

}

export { eventually } from './helpdesk-helpers';
