import { slaTierOf, type EventEnvelope, type SlaTierInput, type TicketSnapshot } from '@helpdesk/contracts';
import { bulkWriteInScopes, type BulkOpInScope, type Scope } from '@helpdesk/kit';
import type { TicketingModels } from '../collections';

const DUPLICATE_KEY = 11000;

/** One change to the ticket facts: a ticket's snapshot (with a reply it carries), or its deletion. */
export type FactChange =
  | { event: EventEnvelope; ticket: TicketSnapshot; reply?: { at: string } }
  | { event: EventEnvelope; forget: string };

type FactState = ReturnType<typeof factStateOf>;
type FactOp =
  | { kind: 'fact'; scope: Scope; id: string; state: FactState; upsert: boolean }
  | { kind: 'reply'; scope: Scope; id: string; at: Date }
  | { kind: 'forget'; scope: Scope; id: string };

/** A fact's fields from a ticket snapshot. */
function factStateOf(ticket: TicketSnapshot) {
  const sla = (ticket as TicketSnapshot & { sla?: SlaTierInput | null }).sla;
  return {
    status: ticket.status,
    priority: ticket.priority,
    assignedTo: ticket.assignedTo ?? null,
    createdAt: new Date(ticket.createdAt),
    closedAt: ticket.closedAt ? new Date(ticket.closedAt) : null,
    slaTier: slaTierOf(sla),
    revision: ticket.revision ?? 0,
  };
}

/**
 * A batch's operation as the driver writes it, in its own scope (the facts are written straight
 * through the driver: values stored as built, nothing to cast): the snapshot when at least as new as
 * the fact (events arrive out of order, and two writes can share an updatedAt), the earliest first
 * public agent/AI reply, a deletion.
 */
function writeOf(op: FactOp): BulkOpInScope {
  const { scope, id: _id } = op;
  switch (op.kind) {
    case 'fact':
      return op.upsert
        ? { scope, updateOne: { filter: { _id, revision: { $lte: op.state.revision } }, update: { $set: op.state, $setOnInsert: { firstResponseAt: null } }, upsert: true } }
        : { scope, updateOne: { filter: { _id, revision: { $lte: op.state.revision } }, update: { $set: op.state } } };
    case 'reply':
      return { scope, updateOne: { filter: { _id, $or: [{ firstResponseAt: null }, { firstResponseAt: { $gt: op.at } }] }, update: { $set: { firstResponseAt: op.at } } } };
    case 'forget':
      return { scope, deleteOne: { filter: { _id } } };
  }
}

/** The index in its bulk of the operation an ordered bulk write stopped at with a duplicate key, if that is why it failed. */
function duplicateKeyAt(err: unknown): number | undefined {
  const writeErrors = (err as { writeErrors?: unknown }).writeErrors;
  const list = (Array.isArray(writeErrors) ? writeErrors : writeErrors ? [writeErrors] : []) as { index?: number; code?: number }[];
  if (list.length !== 1 || list[0]!.code !== DUPLICATE_KEY || typeof list[0]!.index !== 'number') return undefined;
  return list[0]!.index;
}

/** The batch's operations: per ticket, its snapshots merged into one upsert and its replies into one update; deletions where they arrived. */
function batchOps(changes: readonly FactChange[]): FactOp[] {
  const ops: FactOp[] = [];
  const facts = new Map<string, Extract<FactOp, { kind: 'fact' }>>();
  const replies = new Map<string, Extract<FactOp, { kind: 'reply' }>>();
  for (const c of changes) {
    const scope = { teamId: c.event.teamId, mode: c.event.mode };
    if ('forget' in c) {
      const key = `${scope.teamId}:${scope.mode}:${c.forget}`;
      facts.delete(key);
      replies.delete(key);
      ops.push({ kind: 'forget', scope, id: c.forget });
      continue;
    }
    const key = `${scope.teamId}:${scope.mode}:${c.ticket.id}`;
    const state = factStateOf(c.ticket);
    const fact = facts.get(key);
    if (!fact) {
      const op = { kind: 'fact' as const, scope, id: c.ticket.id, state, upsert: true };
      facts.set(key, op);
      ops.push(op);
    } else if (state.revision >= fact.state.revision) fact.state = state;
    if (c.reply) {
      const at = new Date(c.reply.at);
      const reply = replies.get(key);
      if (!reply) {
        const op = { kind: 'reply' as const, scope, id: c.ticket.id, at };
        replies.set(key, op);
        ops.push(op);
      } else if (at < reply.at) reply.at = at;
    }
  }
  return ops;
}

/**
 * A batch of fact changes, in arrival order, as one ordered bulk write (one command in the common
 * case). Per ticket (and partition), the snapshots that arrive together before a deletion of it
 * make one conditional upsert: the highest revision of them (the later one on a tie, as applied one
 * by one), at the place of the first; their replies one first-response update (the earliest), after
 * it. A deletion stays where it arrived. The same facts as batches of one, one event at a time.
 *
 * A conditional upsert whose fact exists with a newer revision fails with a duplicate key: the write stops there (ordered), that upsert is applied again
 * as a plain conditional update (a fact another writer inserted meanwhile, older, is then
 * overwritten; a newer one is left alone) and the rest of the batch follows, one more command each time.
 */
export async function applyFacts({ models }: { models: TicketingModels }, changes: readonly FactChange[]): Promise<void> {
  let rest = batchOps(changes);
  while (rest.length) {
    try {
      await bulkWriteInScopes(models.ticketFacts, rest.map(writeOf), { ordered: true });
      return;
    } catch (err) {
      const at = duplicateKeyAt(err);
      const op = at === undefined ? undefined : rest[at];
      if (!op || op.kind !== 'fact' || !op.upsert) throw err;
      rest = [{ ...op, upsert: false }, ...rest.slice(at! + 1)];
    }
  }
}

