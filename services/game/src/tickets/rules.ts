import type mongoose from 'mongoose';
import type { TicketSnapshot } from '@helpdesk/contracts';
import { scoped, type Scope } from '@helpdesk/kit';
import type { GameModels } from '../collections';
import type { GameTicketDoc } from './model';

/** Channels a customer opens tickets through; `import` never pays nor hits (docs/adr/0032). */
export const CUSTOMER_CHANNELS: readonly string[] = ['api', 'email', 'widget'];

/** The fields being added to ticket snapshots (issue 15): read when present. */
type TicketFacts = TicketSnapshot & { openedBy?: string | null; sla?: { tier?: string | null } | null };

/** A customer ticket: opened by a customer (a missing `openedBy` is not), through a customer channel. */
export const isCustomerTicket = (t: Pick<GameTicketDoc, 'openedBy' | 'channel'>) => t.openedBy === 'customer' && CUSTOMER_CHANNELS.includes(t.channel);

/** Whether the stored copy holds every value of `set` already (dates by time). */
function sameAs(stored: GameTicketDoc, set: Record<string, unknown>): boolean {
  return Object.entries(set).every(([k, v]) => {
    const have = (stored as unknown as Record<string, unknown>)[k];
    if (v instanceof Date) return have instanceof Date && have.getTime() === v.getTime();
    return have === v;
  });
}

/** What applying a snapshot does: the copy as it is after it, and the write that makes it so (null: nothing to write). */
export interface SnapshotApplied {
  doc: GameTicketDoc;
  write: { filter: { _id: string }; update: Record<string, unknown>; upsert: true } | null;
}

/**
 * Applies a ticket snapshot (created, updated, closed) to the stored copy (null: none yet), in memory:
 * the ticket batch (tickets/batch.ts) applies a batch's snapshots of one ticket in order and writes them.
 */
export function applySnapshot(scope: Scope, stored: GameTicketDoc | null, snapshot: TicketSnapshot): SnapshotApplied {
  const t = snapshot as TicketFacts;
  const revision = t.revision ?? 0;
  // By revision, not updatedAt: two writes can share a millisecond, and events arrive out of order.
  if (stored && (stored.revision ?? 0) > revision) return { doc: stored, write: null };
  const set = {
    priority: t.priority,
    channel: t.channel,
    status: t.status,
    closedAt: t.closedAt ? new Date(t.closedAt) : null,
    slaTier: t.sla?.tier ?? null,
    updatedAt: new Date(t.updatedAt),
    revision,
    ...(t.openedBy !== undefined ? { openedBy: t.openedBy } : {}),
  };
  // The same snapshot again (`ticket.updated` and `ticket.closed` of one close carry it): nothing to write.
  if (stored && sameAs(stored, set)) return { doc: stored, write: null };
  const onInsert = { createdAt: new Date(t.createdAt), deleted: false, ...(t.openedBy === undefined ? { openedBy: null } : {}) };
  const doc: GameTicketDoc = stored ? { ...stored, ...set } : { _id: t.id, teamId: scope.teamId, mode: scope.mode, ...onInsert, ...set } as GameTicketDoc;
  return { doc, write: { filter: { _id: t.id }, update: { $set: set, $setOnInsert: onInsert }, upsert: true } };
}

/** The game's copy of the partition's tickets. */
export function gameTicketRules({ models }: { models: GameModels }) {
  return {
    async markDeleted(scope: Scope, ticketId: string, session: mongoose.ClientSession) {
      await scoped(models, scope).tickets.updateOne({ _id: ticketId }, { $set: { deleted: true } }, { session });
    },
    async find(scope: Scope, ticketId: string): Promise<GameTicketDoc | null> {
      return scoped(models, scope).tickets.findOne({ _id: ticketId, deleted: false }).lean<GameTicketDoc>();
    },
    /** Customer tickets created in the partition since `since`. */
    async countCustomerTicketsSince(scope: Scope, since: Date): Promise<number> {
      return scoped(models, scope).tickets.countDocuments({ createdAt: { $gte: since }, openedBy: 'customer', channel: { $in: CUSTOMER_CHANNELS }, deleted: false });
    },
  };
}
export type GameTicketRules = ReturnType<typeof gameTicketRules>;
