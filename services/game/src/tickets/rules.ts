import type mongoose from 'mongoose';
import type { TicketSnapshot } from '@helpdesk/contracts';
import { scoped, type Scope } from '@helpdesk/kit';
import type { GameModels } from '../models';
import type { GameTicketDoc } from './model';

/** Channels a customer opens tickets through; `import` never pays nor hits (docs/adr/0032). */
export const CUSTOMER_CHANNELS: readonly string[] = ['api', 'email', 'widget'];

/** The fields being added to ticket snapshots (issue 15): read when present. */
type TicketFacts = TicketSnapshot & { openedBy?: string | null; sla?: { tier?: string | null } | null };

/** A customer ticket: opened by a customer (a missing `openedBy` is not), through a customer channel. */
export const isCustomerTicket = (t: Pick<GameTicketDoc, 'openedBy' | 'channel'>) => t.openedBy === 'customer' && CUSTOMER_CHANNELS.includes(t.channel);

/** The game's copy of the partition's tickets. */
export function gameTicketRules({ models }: { models: GameModels }) {
  return {
    /** Applies a ticket snapshot (created, updated, closed); returns the stored copy. */
    async record(scope: Scope, snapshot: TicketSnapshot, session: mongoose.ClientSession): Promise<GameTicketDoc> {
      const t = snapshot as TicketFacts;
      const Tickets = scoped(models, scope).tickets;
      const updatedAt = new Date(t.updatedAt);
      const revision = t.revision ?? 0;
      const stored = await Tickets.findOne({ _id: t.id }).session(session).lean<GameTicketDoc>();
      // By revision, not updatedAt: two writes can share a millisecond, and events arrive out of order.
      if (stored && (stored.revision ?? 0) > revision) return stored;
      const doc = await Tickets.findOneAndUpdate(
        { _id: t.id },
        {
          $set: {
            priority: t.priority,
            channel: t.channel,
            status: t.status,
            closedAt: t.closedAt ? new Date(t.closedAt) : null,
            slaTier: t.sla?.tier ?? null,
            updatedAt,
            revision,
            ...(t.openedBy !== undefined ? { openedBy: t.openedBy } : {}),
          },
          $setOnInsert: { createdAt: new Date(t.createdAt), deleted: false, ...(t.openedBy === undefined ? { openedBy: null } : {}) },
        },
        { upsert: true, returnDocument: 'after', session },
      ).lean<GameTicketDoc>();
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
