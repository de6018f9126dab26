import type { MessageSnapshot, TicketSnapshot } from '@helpdesk/contracts';
import type { MessageDoc } from '../messages/model';
import type { TicketDoc } from './model';

// Event snapshots (the public JSON adds to these in ./service.ts).

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function ticketSnapshot(t: TicketDoc): TicketSnapshot {
  return {
    id: t._id,
    title: t.title,
    status: t.status,
    priority: t.priority,
    customerId: t.customerId ?? null,
    assignedTo: t.assignedTo ?? null,
    tags: [...(t.tags ?? [])],
    notes: t.notes ?? null,
    messageCount: t.messageCount,
    metadata: { ...(t.metadata ?? {}) },
    channel: t.channel ?? 'api',
    createdAt: iso(t.createdAt)!,
    updatedAt: iso(t.updatedAt)!,
    resolvedAt: iso(t.resolvedAt),
    closedAt: iso(t.closedAt),
  };
}

export function messageView(m: MessageDoc): MessageSnapshot {
  return {
    id: m._id,
    ticketId: m.ticketId,
    content: m.content,
    sender: m.sender,
    senderName: m.senderName ?? null,
    isInternal: m.isInternal,
    createdAt: iso(m.createdAt)!,
  };
}

