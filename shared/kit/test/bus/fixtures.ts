import { randomBytes, randomUUID } from 'node:crypto';
import pino from 'pino';
import type { EventEnvelope } from '@helpdesk/contracts';

export const silentLogger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

export const TEAM = randomUUID();

export function evtId(): string {
  return `evt_${randomBytes(12).toString('hex')}`;
}

export function ticket(id = 'tkt_1', title = 'Printer on fire') {
  const now = new Date().toISOString();
  return {
    id, title, status: 'new' as const, priority: 'normal' as const, customerId: null, assignedTo: null, tags: [], notes: null,
    messageCount: 0, metadata: {}, channel: 'api', createdAt: now, updatedAt: now, resolvedAt: null, closedAt: null,
  };
}

export function envelope(type: 'ticket.created' | 'ticket.closed' | 'ticket.updated' = 'ticket.created', data?: Record<string, unknown>): EventEnvelope {
  const t = ticket();
  const defaults: Record<string, Record<string, unknown>> = {
    'ticket.created': { ticket: t },
    'ticket.closed': { ticket: { ...t, status: 'closed' }, previousStatus: 'open' },
    'ticket.updated': { ticket: t, changes: ['title'], previous: { title: 'x' } },
  };
  return {
    id: evtId(), type, version: 1, teamId: TEAM, mode: 'test', occurredAt: new Date().toISOString(), requestId: null,
    actor: { type: 'system', id: null }, data: data ?? defaults[type],
  };
}

export async function waitFor(cond: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
