import mongoose from 'mongoose';
import { tenancyPlugin } from '@helpdesk/kit';
import type { CustomerSnapshot, Partition } from '@helpdesk/contracts';

/**
 * Ticketing's projection of customers, fed by `customer.*` events (and by the answer the customers
 * service gave when a ticket was linked to a customer it had not seen yet): what ticket search,
 * `expand[]=customer` and the customer check of a ticket's create or move need, with no call to
 * another service (docs/adr/0055). `rev` orders updates (an older event never overwrites a newer one);
 * `deleted` is a tombstone that refuses new links once `customer.deleted` is seen.
 */
export interface CustomerRefDoc {
  _id: string;
  teamId: string;
  mode: Partition;
  name: string;
  email: string | null;
  status: string;
  sentiment: string;
  tags: string[];
  rev: number;
  deleted: boolean;
  /** Written by every link (ticket create or move): a link and a deletion can never both commit unseen. */
  linkedAt: Date | null;
}

const schema = new mongoose.Schema<CustomerRefDoc>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    email: { type: String, default: null },
    status: { type: String, required: true },
    sentiment: { type: String, required: true },
    tags: { type: [String], default: [] },
    rev: { type: Number, required: true },
    deleted: { type: Boolean, required: true, default: false },
    linkedAt: { type: Date, default: null },
  },
  { collection: 'customer_refs', versionKey: false, strict: 'throw' },
);
schema.plugin(tenancyPlugin);

export type CustomerRefModel = mongoose.Model<CustomerRefDoc>;

export function customerRefModel(conn: mongoose.Connection): CustomerRefModel {
  return (conn.models.CustomerRef as CustomerRefModel | undefined) ?? conn.model<CustomerRefDoc>('CustomerRef', schema);
}

/**
 * What ticketing needs of a customer to link a ticket to it (and to show it): a `customer.*` event's
 * snapshot, the customers service's answer, or the projection's row (`factsOf`) all give it.
 */
export type CustomerFacts = Pick<CustomerSnapshot, 'id' | 'name' | 'email' | 'status' | 'tags' | 'rev'> & Pick<CustomerRefDoc, 'sentiment'>;

/** The fields a snapshot sets on the projection. */
export function refFields(c: CustomerFacts): Pick<CustomerRefDoc, 'name' | 'email' | 'status' | 'sentiment' | 'tags' | 'rev'> {
  return { name: c.name, email: c.email, status: c.status, sentiment: c.sentiment, tags: c.tags, rev: c.rev };
}

/** A projection row as the facts a link needs. */
export function factsOf(r: CustomerRefDoc): CustomerFacts {
  return { id: r._id, name: r.name, email: r.email, status: r.status, sentiment: r.sentiment, tags: r.tags, rev: r.rev };
}

/** What `expand[]=customer` embeds: the customer as ticketing last saw it. */
export function customerSummary(r: CustomerRefDoc) {
  return { id: r._id, name: r.name, email: r.email, status: r.status, sentiment: r.sentiment, tags: [...r.tags] };
}
export type CustomerSummary = ReturnType<typeof customerSummary>;
