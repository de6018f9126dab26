import type { EventEnvelope } from '@helpdesk/contracts';
import { microBatches, retrying, scoped, type Scope } from '@helpdesk/kit';
import type { WorkspaceModels } from '../collections';
import { actorNamesOf, chainedEntries } from './entry';
import type { AuditEntryDoc } from './model';
import type { MemberNames } from './port';

const isDuplicate = (err: unknown) => (err as { code?: number }).code === 11000;
/** Appends racing for the same sequence: the loser re-reads the chain's end and tries again. */
const APPEND_RETRIES = 20;
const END_KEPT_MS = 60_000;
const ENDS_MAX = 10_000;

const chainOf = (e: { teamId: string; mode: string }) => `${e.teamId}:${e.mode}`;

/**
 * Records events in the audit log: one hash-chained entry per event, per team and partition
 * (docs/adr/0023). Holds this process's state of the chains: the appends in turn, and each chain's
 * end as last appended.
 */
export function auditRecorder({ models, members }: { models: WorkspaceModels; members: MemberNames }) {
  const db = (scope: Scope) => scoped(models, scope).auditEntries;

  /**
   * Appends to one chain run one after another in this process (docs/adr/0043): concurrent events of
   * one team and partition otherwise race for the same sequence, and all but one re-read and retry
   * (under load, ~20 commands per event). Another replica's appends still race, and still retry.
   */
  const tails = new Map<string, Promise<void>>();
  /**
   * Each chain's end as this process last appended it (docs/adr/0045): the next append in turn
   * needs no read. Never trusted blindly: another replica's append takes that sequence first, the
   * insert then fails on the unique sequence, the entry is dropped and the end read again. Bounded
   * (oldest dropped first) and kept at most a minute.
   */
  const ends = new Map<string, { sequence: number; hash: string; at: number }>();
  function inTurn(chain: string, append: () => Promise<void>): Promise<void> {
    const run = (tails.get(chain) ?? Promise.resolve()).then(append);
    const tail = run.catch(() => {});
    tails.set(chain, tail);
    void tail.then(() => {
      if (tails.get(chain) === tail) tails.delete(chain);
    });
    return run;
  }

  /**
   * Appends `events` (one chain's, in order; `names` their actors' names) at the end of the chain in
   * ONE insert of consecutive entries (entry.ts: chainedEntries). The insert is ordered: if it fails
   * (a redelivered event, another replica's append taking a sequence), the entries before the failing
   * one are in the chain, the rest are not, and the chain's end is read again by the next append.
   */
  async function append(events: EventEnvelope[], names: string[]): Promise<void> {
    const scope = { teamId: events[0]!.teamId, mode: events[0]!.mode };
    const chain = chainOf(scope);
    const known = ends.get(chain);
    const last =
      known && Date.now() - known.at < END_KEPT_MS
        ? known
        : await db(scope).findOne({}, { sequence: 1, hash: 1 }).sort({ sequence: -1 }).lean<Pick<AuditEntryDoc, 'sequence' | 'hash'>>();
    ends.delete(chain);
    const { docs, end } = chainedEntries(events, names, last);
    // Built here in full (and hashed as built): inserted lean, without mongoose hydration (docs/adr/0043).
    await db(scope).leanInsert(docs);
    if (ends.size >= ENDS_MAX) ends.delete(ends.keys().next().value!);
    ends.set(chain, { ...end, at: Date.now() });
  }

  /** One event on its own: a duplicate that is this very event is done; a lost race for a sequence reads the end again and retries. */
  async function recordOne(event: EventEnvelope): Promise<void> {
    // No "already recorded?" read first: eventId is unique, so a redelivered event's insert fails
    // as a duplicate and is recognised below (docs/adr/0045).
    const names = await actorNamesOf(members, [event]);
    await inTurn(chainOf(event), () =>
      retrying(
        () =>
          append([event], names).catch(async (err) => {
            // The same event appended meanwhile (a concurrent redelivery): nothing to do.
            if (isDuplicate(err) && (await db(event).exists({ eventId: event.id }))) return;
            throw err;
          }),
        isDuplicate,
        APPEND_RETRIES,
      ),
    );
  }

  /**
   * The events submitted together (kit's microBatches, docs/adr/0047), in arrival order (a repeated
   * id counted once): their actors' names looked up once per actor, then per chain ONE insert of
   * consecutive entries. Any failure (a redelivered event, a lost race with another replica) fails the
   * batch, and microBatches applies it again one event at a time (recordOne), where a repeat, or an
   * entry this batch inserted before failing, is recognised and skipped, and a race is retried.
   */
  const batches = microBatches<EventEnvelope>(async (all) => {
    const seen = new Set<string>();
    const events = all.filter((e) => !seen.has(e.id) && seen.add(e.id));
    if (events.length === 1) return recordOne(events[0]!);
    const names = await actorNamesOf(members, events);
    const chains = new Map<string, { events: EventEnvelope[]; names: string[] }>();
    events.forEach((e, i) => {
      const chain = chains.get(chainOf(e)) ?? { events: [], names: [] };
      chain.events.push(e);
      chain.names.push(names[i]!);
      chains.set(chainOf(e), chain);
    });
    // Every chain's insert settles before the batch fails: the one-by-one pass must not race them.
    const results = await Promise.allSettled([...chains].map(([chain, c]) => inTurn(chain, () => append(c.events, c.names))));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  });

  return {
    /**
     * Appends the event's entry at the end of its chain, in the next micro-batch; resolves once it is
     * recorded. A redelivered event is already there and is skipped.
     */
    record: (event: EventEnvelope): Promise<void> => batches.submit(event),

    /** Batches recorded whole, the events in them, the largest, and batches recorded again one by one (tests, benchmarks). */
    batchStats: () => batches.stats(),
  };
}
export type AuditRecorder = ReturnType<typeof auditRecorder>;
