import type mongoose from 'mongoose';
import type { TicketSnapshot } from '@helpdesk/contracts';
import { scoped, type Scope } from '@helpdesk/kit';
import { leanScoped } from '../lean';
import type { GameModels } from '../models';
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

/** The game's copy of the partition's tickets. */
export function gameTicketRules({ models }: { models: GameModels }) {
  return {
    /** Applies a ticket snapshot (created, updated, closed); returns the stored copy. */
    async record(scope: Scope, snapshot: TicketSnapshot, session: mongoose.ClientSession): Promise<GameTicketDoc> {
      const t = snapshot as TicketFacts;
      const updatedAt = new Date(t.updatedAt);
      const revision = t.revision ?? 0;
      const Tickets = leanScoped(models.tickets, scope);
      const stored = await Tickets.findOne<GameTicketDoc>({ _id: t.id }, session);
      // By revision, not updatedAt: two writes can share a millisecond, and events arrive out of order.
      if (stored && (stored.revision ?? 0) > revision) return stored;
      const set = {
        priority: t.priority,
        channel: t.channel,
        status: t.status,
        closedAt: t.closedAt ? new Date(t.closedAt) : null,
        slaTier: t.sla?.tier ?? null,
        updatedAt,
        revision,
        ...(t.openedBy !== undefined ? { openedBy: t.openedBy } : {}),
      };
      // The same snapshot again (`ticket.updated` and `ticket.closed` of one close carry it): nothing to write.
      if (stored && sameAs(stored, set)) return stored;
      const doc = await Tickets.findOneAndUpdate<GameTicketDoc>(
        { _id: t.id },
        { $set: set, $setOnInsert: { createdAt: new Date(t.createdAt), deleted: false, ...(t.openedBy === undefined ? { openedBy: null } : {}) } },
        session,
        { upsert: true },
      );
      return doc!;
    },
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
