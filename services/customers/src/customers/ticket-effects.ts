import type mongoose from 'mongoose';
import type { MessageSnapshot } from '@helpdesk/contracts';
import { bulkWriteInScopes, scoped, type Emit, type Scope } from '@helpdesk/kit';
import type { CustomerDoc, ScoredMessage } from './model';
import type { CustomerStore } from './port';
import { keepNewest, labelOf, scoreMessage } from './sentiment';
import { customerSnapshot } from './view';

// Derived from ticket events (consumers/tickets.ts), inside the consumer's transaction.

/**
 * ticketCount += delta for each, in one command (an ordered bulk of `$inc` updates, each customer in
 * its own team and partition; a customer that does not exist (any more) is left alone). Nothing when empty.
 */
export async function adjustTicketCounts(
  { models }: Pick<CustomerStore, 'models'>,
  adjustments: readonly { scope: Scope; customerId: string; delta: number }[],
  session: mongoose.ClientSession,
): Promise<void> {
  if (!adjustments.length) return;
  await bulkWriteInScopes(
    models.customers,
    adjustments.map((a) => ({ scope: a.scope, updateOne: { filter: { _id: a.customerId }, update: { $inc: { ticketCount: a.delta } } } })),
    { session, ordered: true },
  );
}

/**
 * Scores the customer's public messages and recalculates its sentiment. When the shown value
 * changes (no override in the way), the customer's rev and updatedAt move and customer.updated
 * is emitted with changes ['sentiment'].
 */
export async function addCustomerMessages(
  { models }: Pick<CustomerStore, 'models'>,
  scope: Scope,
  customerId: string,
  messages: MessageSnapshot[],
  session: mongoose.ClientSession,
  emit: Emit,
): Promise<void> {
  const own = messages.filter((m) => m.sender === 'customer' && !m.isInternal);
  if (!own.length) return;
  const customers = scoped(models, scope).customers;
  const cur = await customers.findOne({ _id: customerId }).session(session).lean<CustomerDoc>();
  if (!cur) return;
  const added: ScoredMessage[] = own.map((m) => ({ messageId: m.id, at: new Date(m.createdAt), score: scoreMessage(m.content) }));
  const kept = keepNewest(cur.sentimentScores ?? [], added);
  const calculated = labelOf(kept);
  const shown = cur.sentimentOverride ?? calculated;
  const set: Partial<CustomerDoc> = { sentimentScores: kept, sentimentCalculated: calculated };
  if (shown === cur.sentiment) {
    await customers.updateOne({ _id: customerId }, { $set: set }, { session });
    return;
  }
  const written = await customers
    .findOneAndUpdate({ _id: customerId }, { $set: { ...set, sentiment: shown, updatedAt: new Date() }, $inc: { rev: 1 } }, { session, returnDocument: 'after' })
    .lean<CustomerDoc>();
  emit({ type: 'customer.updated', data: { customer: customerSnapshot(written!), changes: ['sentiment'], previous: { sentiment: cur.sentiment } } });
}
