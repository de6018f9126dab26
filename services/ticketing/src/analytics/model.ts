import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { Partition } from '@helpdesk/contracts';

/**
 * One ticket as analytics counts it (docs/adr/0030), kept from ticketing's own ticket events: its
 * state now and the moments the figures measure. `revision` is the snapshot's (an older event never
 * overwrites a newer one, docs/adr/0030); `firstResponseAt` is the first public agent or AI reply.
 */
export interface TicketFactDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  status: string;
  priority: string;
  assignedTo: string | null;
  createdAt: Date;
  closedAt: Date | null;
  firstResponseAt: Date | null;
  /** The ticket's SLA tier when it has one (`slaTierOf`), else null. */
  slaTier: string | null;
  revision: number;
}

const schema = new mongoose.Schema<TicketFactDoc>(
  {
    _id: { type: String, required: true },
    status: { type: String, required: true },
    priority: { type: String, required: true },
    assignedTo: { type: String, default: null },
    createdAt: { type: Date, required: true },
    closedAt: { type: Date, default: null },
    firstResponseAt: { type: Date, default: null },
    slaTier: { type: String, default: null },
    revision: { type: Number, required: true },
  },
  { collection: 'ticket_facts', versionKey: false, strict: 'throw' },
);
schema.plugin(tenancyPlugin);
// Every figure is over the tickets created in a range of one partition; the index holds every field
// the aggregations read, so they are answered from it without reading the documents.
schema.index({ teamId: 1, mode: 1, createdAt: 1, status: 1, priority: 1, firstResponseAt: 1, closedAt: 1, assignedTo: 1, slaTier: 1 });
// The time series' closed-per-day.
schema.index({ teamId: 1, mode: 1, closedAt: 1 });

export type TicketFactModel = mongoose.Model<TicketFactDoc>;

export const ticketFactModel = (conn: mongoose.Connection): TicketFactModel =>
  (conn.models.TicketFact as TicketFactModel | undefined) ?? conn.model<TicketFactDoc>('TicketFact', schema);
