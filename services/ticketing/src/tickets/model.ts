import mongoose from 'mongoose';
import { searchTokensOf, tenancyPlugin } from '@helpdesk/kit';
import { PRIORITIES, TICKET_STATUSES, type Priority, type TicketStatus, type Partition } from '@helpdesk/contracts';
import type { StoredSla } from '../sla/state';

/** A stored ticket. `_id` is the public `tkt_…` id. `searchText` and the customer fields are internal. */
export interface TicketDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  title: string;
  status: TicketStatus;
  priority: Priority;
  customerId: string | null;
  /** The linked customer's name and email as last seen (search text; kept right by `customer.*` events). */
  customerName: string | null;
  customerEmail: string | null;
  assignedTo: string | null;
  tags: string[];
  notes: string | null;
  messageCount: number;
  metadata: Record<string, unknown>;
  /** `{fieldId: value}`, checked against the team's definitions (docs/adr/0022). */
  customFields?: Record<string, unknown>;
  channel: string;
  /** `customer` when the opening message was the customer's, else `member` (docs/adr/0025); absent on older tickets (`member`). */
  openedBy?: 'customer' | 'member';
  /** The SLA clock (docs/adr/0026); null when no rule applied. */
  sla?: StoredSla | null;
  /** When the breach scheduler must look at the ticket next (indexed; null: nothing can breach). */
  slaNextDueAt?: Date | null;
  /** The target a `merged` ticket was merged into (docs/adr/0027). */
  mergedInto?: string | null;
  /** Lowercase `title \n customerName \n content…`: the tickets list's `search` (a substring) and search snippets. */
  searchText: string;
  /** The words of searchText and of the title (ticketSearchTokens), in the multikey index GET /search looks words up in (docs/adr/0034); absent on older tickets until their first search. */
  searchTokens?: string[];
  titleTokens?: string[];
  /** Bumped by every write: PATCH writes only if nobody wrote since it read (optimistic concurrency). */
  rev: number;
  createdAt: Date;
  updatedAt: Date;
  resolvedAt: Date | null;
  closedAt: Date | null;
}

const ticketSchema = new mongoose.Schema<TicketDoc>(
  {
    _id: { type: String, required: true },
    title: { type: String, required: true },
    status: { type: String, enum: TICKET_STATUSES, required: true },
    priority: { type: String, enum: PRIORITIES, required: true },
    customerId: { type: String, default: null },
    customerName: { type: String, default: null },
    customerEmail: { type: String, default: null },
    assignedTo: { type: String, default: null },
    tags: { type: [String], default: [] },
    notes: { type: String, default: null },
    messageCount: { type: Number, required: true, default: 0 },
    metadata: { type: mongoose.Schema.Types.Mixed, default: () => ({}) },
    customFields: { type: mongoose.Schema.Types.Mixed, default: () => ({}) },
    channel: { type: String, required: true, default: 'api' },
    openedBy: { type: String, enum: ['customer', 'member'], default: 'member' },
    sla: { type: mongoose.Schema.Types.Mixed, default: null },
    slaNextDueAt: { type: Date, default: null },
    mergedInto: { type: String, default: null },
    searchText: { type: String, required: true, default: '' },
    searchTokens: { type: [String], default: undefined },
    titleTokens: { type: [String], default: undefined },
    rev: { type: Number, required: true, default: 0 },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    resolvedAt: { type: Date, default: null },
    closedAt: { type: Date, default: null },
  },
  { collection: 'tickets', versionKey: false, minimize: false, strict: 'throw' },
);
ticketSchema.plugin(tenancyPlugin);
ticketSchema.index({ teamId: 1, mode: 1, createdAt: -1, _id: -1 });
// The incremental export reads changes in (updatedAt, _id) order after a cursor (docs/adr/0036).
ticketSchema.index({ teamId: 1, mode: 1, updatedAt: 1, _id: 1 });
// The list filtered by status, newest first: its page is read from this index in order (docs/adr/0042).
ticketSchema.index({ teamId: 1, mode: 1, status: 1, createdAt: -1, _id: -1 });
// GET /search looks a word up here (multikey: one key per word), docs/adr/0034.
ticketSchema.index({ teamId: 1, mode: 1, searchTokens: 1 });
// A customer's and an assignee's tickets, newest first, also read in index order.
ticketSchema.index({ teamId: 1, mode: 1, customerId: 1, createdAt: -1, _id: -1 });
ticketSchema.index({ teamId: 1, mode: 1, assignedTo: 1, createdAt: -1, _id: -1 });
// The SLA breach scan looks across teams for due clocks (docs/adr/0026).
ticketSchema.index({ slaNextDueAt: 1 }, { partialFilterExpression: { slaNextDueAt: { $type: 'date' } } });

export type TicketModel = mongoose.Model<TicketDoc>;

export function ticketModel(conn: mongoose.Connection): TicketModel {
  return (conn.models.Ticket as TicketModel | undefined) ?? conn.model<TicketDoc>('Ticket', ticketSchema);
}

/** A ticket's search words (docs/adr/0034): stored by every write of its search text. */
export function ticketSearchTokens(t: Pick<TicketDoc, 'title' | 'searchText'>): { searchTokens: string[]; titleTokens: string[] } {
  return { searchTokens: searchTokensOf(t.searchText), titleTokens: searchTokensOf(t.title) };
}

/** The search text is always built this way, so a title change can swap its leading part. */
export function buildSearchText(title: string, customerName: string | null, contents: string[]): string {
  return [title, customerName ?? '', ...contents].join('\n').toLowerCase();
}

export function replaceTitleInSearchText(searchText: string, oldTitle: string, newTitle: string): string {
  return newTitle.toLowerCase() + searchText.slice(oldTitle.toLowerCase().length);
}

/** Swaps the customer-name line (the second) of a search text built by buildSearchText. */
export function replaceCustomerNameInSearchText(searchText: string, title: string, oldName: string | null, newName: string | null): string {
  const start = title.toLowerCase().length + 1;
  return searchText.slice(0, start) + (newName ?? '').toLowerCase() + searchText.slice(start + (oldName ?? '').toLowerCase().length);
}
