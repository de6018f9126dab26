import type { CreateTicketInput } from '@helpdesk/contracts';
import { newId, withoutNulls, type Unscoped } from '@helpdesk/kit';
import type { Clock } from '../clock';
import type { CustomerFacts } from '../customer-refs/model';
import { resolveInternal } from './messages/internal';
import type { MessageDoc } from './messages/model';
import type { TicketDoc } from './model';

/** A ticket built by the create rule, not yet written. */
export interface NewTicket {
  doc: Unscoped<TicketDoc>;
  msgs: Unscoped<MessageDoc>[];
  customer: CustomerFacts | null;
  now: Date;
}

/** The team's custom field values of a new ticket, checked against its definitions (docs/adr/0022). */
export type ResolveFields = (given: Record<string, unknown> | undefined, current: null) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** A new ticket's documents, built field by field from the validated create input (no write yet). */
export async function buildTicket(
  { clock }: { clock: Clock },
  input: CreateTicketInput,
  customer: CustomerFacts | null,
  channel: string,
  resolveFields: ResolveFields,
): Promise<NewTicket> {
  const now = clock.now();
  const id = newId('ticket');
  const msgs: Unscoped<MessageDoc>[] = (input.messages ?? []).map((m, i) => ({
    _id: newId('message'),
    ticketId: id,
    content: m.content,
    sender: m.sender,
    senderName: m.senderName ?? null,
    isInternal: resolveInternal(m, `messages.${i}.`),
    createdAt: now,
    seq: i + 1,
  }));
  const customFieldValues = await resolveFields(input.customFields, null);
  const doc: Unscoped<TicketDoc> = {
    _id: id,
    title: input.title,
    status: 'new',
    priority: input.priority ?? 'normal',
    customerId: customer?.id ?? null,
    customerName: customer?.name ?? null,
    customerEmail: customer?.email ?? null,
    assignedTo: null,
    tags: input.tags ?? [],
    notes: input.notes ?? null,
    messageCount: msgs.length,
    metadata: withoutNulls(input.metadata ?? {}),
    customFields: customFieldValues,
    channel,
    // The game counts customer tickets only: opened by the customer's own message (docs/adr/0025).
    openedBy: msgs[0]?.sender === 'customer' ? 'customer' : 'member',
    sla: null,
    slaNextDueAt: null,
    mergedInto: null,
    searchText: '',
    rev: 0,
    createdAt: now,
    updatedAt: now,
    resolvedAt: null,
    closedAt: null,
  };
  return { doc, msgs, customer, now };
}
