import mongoose from 'mongoose';
import { SENTIMENTS, type Partition } from '@helpdesk/contracts';
import { searchTokensOf, tenancyPlugin } from '@helpdesk/kit';

export type Sentiment = (typeof SENTIMENTS)[number];

/** One scored customer message (see ./sentiment.ts). */
export interface ScoredMessage {
  messageId: string;
  at: Date;
  score: number;
}

/** A stored customer. `_id` is the public `cus_…` id; everything after `metadata` is internal or derived. */
export interface CustomerDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  name: string;
  /** As given; null only for customers created through the internal endpoint (a ticket naming only a name). */
  email: string | null;
  /** Lowercase copy of `email`: the unique key (per team and partition) and what lookups match. */
  emailLower: string | null;
  status: string;
  /** The public value: `sentimentOverride ?? sentimentCalculated`, kept in step by every write (list filter). */
  sentiment: Sentiment;
  sentimentOverride: Sentiment | null;
  sentimentCalculated: Sentiment;
  /** The newest scored customer messages (at most SCORES_KEPT), oldest first. */
  sentimentScores: ScoredMessage[];
  tags: string[];
  notes: string | null;
  metadata: Record<string, unknown>;
  /** `{fieldId: value}`, checked against the team's definitions (docs/adr/0022). */
  customFields?: Record<string, unknown>;
  /** Derived from ticket events; increments commute, so it may dip below 0 while events are in flight (shown as 0). */
  ticketCount: number;
  /** Groups the customer belongs to; every membership change writes it, so it conflicts with a concurrent delete. */
  groupCount: number;
  /** Bumped by every change that publishes a customer event (projections order by it). */
  rev: number;
  /** The words of the name and email (customerSearchTokens), in the multikey index GET /search looks words up in (docs/adr/0034); absent on older customers until their first search. */
  searchTokens?: string[];
  createdAt: Date;
  updatedAt: Date;
}

/** A customer's search words (docs/adr/0034): its name's and email's, stored by every write of either. */
export function customerSearchTokens(c: Pick<CustomerDoc, 'name' | 'email'>): { searchTokens: string[] } {
  return { searchTokens: searchTokensOf(c.name, c.email) };
}

const scoredSchema = new mongoose.Schema<ScoredMessage>(
  { messageId: { type: String, required: true }, at: { type: Date, required: true }, score: { type: Number, required: true } },
  { _id: false },
);

const customerSchema = new mongoose.Schema<CustomerDoc>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    email: { type: String, default: null },
    emailLower: { type: String, default: null },
    status: { type: String, required: true },
    sentiment: { type: String, enum: SENTIMENTS, required: true },
    sentimentOverride: { type: String, enum: [...SENTIMENTS, null], default: null },
    sentimentCalculated: { type: String, enum: SENTIMENTS, required: true },
    sentimentScores: { type: [scoredSchema], default: [] },
    tags: { type: [String], default: [] },
    notes: { type: String, default: null },
    metadata: { type: mongoose.Schema.Types.Mixed, default: () => ({}) },
    customFields: { type: mongoose.Schema.Types.Mixed, default: () => ({}) },
    ticketCount: { type: Number, required: true, default: 0 },
    groupCount: { type: Number, required: true, default: 0 },
    rev: { type: Number, required: true, default: 0 },
    searchTokens: { type: [String], default: undefined },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { collection: 'customers', versionKey: false, minimize: false, strict: 'throw' },
);
customerSchema.plugin(tenancyPlugin);
customerSchema.index({ teamId: 1, mode: 1, createdAt: -1, _id: -1 });
// The incremental export reads changes in (updatedAt, _id) order after a cursor (docs/adr/0036).
customerSchema.index({ teamId: 1, mode: 1, updatedAt: 1, _id: 1 });
// Email unique per team and partition, case-insensitively; customers without an email do not collide.
customerSchema.index(
  { teamId: 1, mode: 1, emailLower: 1 },
  { unique: true, partialFilterExpression: { emailLower: { $type: 'string' } } },
);
customerSchema.index({ teamId: 1, mode: 1, status: 1 });
// GET /search looks a word up here (multikey: one key per word), docs/adr/0034.
customerSchema.index({ teamId: 1, mode: 1, searchTokens: 1 });
customerSchema.index({ teamId: 1, mode: 1, sentiment: 1 });

export type CustomerModel = mongoose.Model<CustomerDoc>;

export function customerModel(conn: mongoose.Connection): CustomerModel {
  return (conn.models.Customer as CustomerModel | undefined) ?? conn.model<CustomerDoc>('Customer', customerSchema);
}
