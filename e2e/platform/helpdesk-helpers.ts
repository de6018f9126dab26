import type { EventEnvelope } from '@helpdesk/contracts';
import type { ApiResponse } from '@helpdesk/testing';
import type { TestPlatform } from '../support/platform';

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
export const REQ_ID = /^req_[A-Za-z0-9]+$/;
export const TKT_ID = /^tkt_[A-Za-z0-9]{24}$/;
export const MSG_ID = /^msg_[A-Za-z0-9]{24}$/;

/** Collects every ticket event the ticketing service publishes, for the file's lifetime. */
export class EventLog {
  readonly events: EventEnvelope<any>[] = [];

  static async start(tp: TestPlatform): Promise<EventLog> {
    const log = new EventLog();
    await tp.observe('ticketing', ['ticket.#'], async (e: EventEnvelope) => {
      log.events.push(e as EventEnvelope<any>);
    });
    return log;
  }

  forTicket(ticketId: string): EventEnvelope<any>[] {
    return this.events.filter((e) => (e.data.ticket?.id ?? e.data.ticketId) === ticketId);
  }

  /** Polls (never a fixed sleep) until `count` events of the ticket are in; then returns them. */
  async waitFor(ticketId: string, count: number, timeoutMs = 10_000): Promise<EventEnvelope<any>[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.forTicket(ticketId).length < count) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} events of ${ticketId}; have ${JSON.stringify(this.forTicket(ticketId).map((e) => e.type))}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    return this.forTicket(ticketId);
  }
}

/**
 * Proves that nothing was published for a refused request: makes a marker write afterwards and waits
 * for its event; the ticketing outbox publishes in commit order, so anything earlier is in by then.
 */
export async function settle(tp: TestPlatform, log: EventLog): Promise<number> {
  const res = await tp.api.post(`${tp.teamPath}/tickets`, { title: 'marker' });
  expect(res.status).toBe(201);
  await tp.platform.ticketing.relay.drain();
  await log.waitFor(res.body.data.id, 1);
  return log.events.length;
}

/** Asserts the full error shape of a refused request, and the request id header. */
export function expectError(res: ApiResponse, status: number, type: string, code: string, param?: string): void {
  expect({ status: res.status, type: res.body?.error?.type, code: res.body?.error?.code, param: res.body?.error?.param }).toEqual({ status, type, code, param });
  expect(res.body.success).toBe(false);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.request_id).toMatch(REQ_ID);
  expect(res.headers.get('x-svc-request-id')).toBe(res.body.error.request_id);
  expect(res.body.meta.timestamp).toMatch(ISO);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
}

/** Asserts a success envelope and returns `data`. */
export function expectOk(res: ApiResponse, status: number): any {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  expect(res.body.success).toBe(true);
  expect(res.body.meta.requestId).toMatch(REQ_ID);
  expect(res.headers.get('x-svc-request-id')).toBe(res.body.meta.requestId);
  expect(res.body.meta.timestamp).toMatch(ISO);
  return res.body.data;
}

export const TICKET_KEYS = ['assignedTo', 'channel', 'closedAt', 'createdAt', 'customFields', 'customerId', 'id', 'mergedInto', 'messageCount', 'metadata', 'notes', 'openedBy', 'priority', 'resolvedAt', 'sla', 'status', 'tags', 'title', 'updatedAt'];
export const MESSAGE_KEYS = ['authorId', 'content', 'createdAt', 'id', 'isInternal', 'sender', 'senderName', 'ticketId'];

/** Creates a customer through the gateway (the customers service) and returns it. */
export async function createCustomer(tp: TestPlatform, name: string, email: string, key?: string, teamPath = tp.teamPath): Promise<any> {
  const res = await tp.api.post(`${teamPath}/customers`, { name, email }, key ? { key } : {});
  if (res.status !== 201) throw new Error(`customer not created: ${res.status} ${res.text}`);
  return res.body.data;
}

export { eventually } from '@helpdesk/testing';
