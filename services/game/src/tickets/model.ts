import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { Partition } from '@helpdesk/contracts';

/**
 * What the game knows of a ticket, from the ticketing service's events, in the ticket's partition
 * (each partition plays its own game, docs/adr/0033): enough to decide whether it pays XP, counts
 * toward a boss spawn, and may hit a boss.
 */
export interface GameTicketDoc {
  /** The ticket id (`tkt_…`). */
  _id: string;
  teamId: string;
  mode: Partition;
  priority: 'low' | 'normal' | 'high' | 'urgent';
  channel: string;
  /** `customer` or `member`; null when the event did not say (then it is not a customer ticket). */
  openedBy: string | null;
  status: string;
  createdAt: Date;
  closedAt: Date | null;
  /** The SLA tier at the last event (gold, silver, bronze, missed), null without an SLA. */
  slaTier: string | null;
  deleted: boolean;
  /** The snapshot's `updatedAt`. */
  updatedAt: Date;
  /** The snapshot's `revision`: an older snapshot arriving late never overwrites a newer one. */
  revision: number;
}

const ticketSchema = new mongoose.Schema<GameTicketDoc>(
  {
    _id: { type: String, required: true },
    priority: { type: String, required: true },
    channel: { type: String, required: true },
    openedBy: { type: String, default: null },
    status: { type: String, required: true },
    createdAt: { type: Date, required: true },
    closedAt: { type: Date, default: null },
    slaTier: { type: String, default: null },
    deleted: { type: Boolean, required: true, default: false },
    updatedAt: { type: Date, required: true },
    revision: { type: Number, required: true, default: 0 },
  },
  { collection: 'tickets', versionKey: false, minimize: false, strict: 'throw' },
);
ticketSchema.plugin(tenancyPlugin);
// The boss spawn counts a partition's customer tickets of the last 5 minutes.
ticketSchema.index({ teamId: 1, mode: 1, createdAt: -1 });

export type GameTicketModel = mongoose.Model<GameTicketDoc>;
export const gameTicketModel = (conn: mongoose.Connection): GameTicketModel =>
  (conn.models.GameTicket as GameTicketModel | undefined) ?? conn.model<GameTicketDoc>('GameTicket', ticketSchema);
