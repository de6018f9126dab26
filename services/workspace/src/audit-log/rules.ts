import type mongoose from 'mongoose';
import type { EventEnvelope, ListAuditLogQuery, Page } from '@helpdesk/contracts';
import { findPage, microBatches, newId, parameterInvalid, retrying, scoped, type RequestContext, type Scope, type ScopedFilter, type Unscoped } from '@helpdesk/kit';
import type { MemberRules } from '../members/rules';
import type { WorkspaceModels } from '../models';
import { entryHash } from './chain';
import type { AuditEntryDoc } from './model';
import { auditEntryView } from './view';

export interface AuditLogRulesDeps {
  conn: mongoose.Connection;
  models: WorkspaceModels;
  members: MemberRules;
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const isDuplicate = (err: unknown) => (err as { code?: number }).code === 11000;
/** Appends racing for the same sequence: the loser re-reads the chain's end and tries again. */
const APPEND_RETRIES = 20;

/** `ticket.message_added` → `ticket`; `community.post.created` → `community.post`. */
export const resourceTypeOf = (type: string) => type.split('.').slice(0, -1).join('.');

/** The id of the resource an event is about: `data.<resource>.id`, else `data.<resource>Id`, else null. */
export function resourceIdOf(type: string, data: Record<string, unknown>): string | null {
  const name = camel(resourceTypeOf(type).split('.').at(-1)!);
  const snapshot = data[name] as { id?: unknown } | undefined;
  if (snapshot && typeof snapshot === 'object' && typeof snapshot.id === 'string') return snapshot.id;
  const id = data[`${name}Id`];
  return typeof id === 'string' ? id : null;
}

/** The date a `startDate`/`endDate` names; a date alone is that day at midnight UTC. */
function dateOf(param: 'startDate' | 'endDate', value: string): Date {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw parameterInvalid(param, `Invalid ${param}: not a date.`);
  return d;
}

/** The audit log: one hash-chained entry per event, per team and partition (docs/adr/0023). */
export function auditLogRules({ models, members }: AuditLogRulesDeps) {
  const db = (scope: Scope) => scoped(models, scope).auditEntries;

  async function actorNameOf(event: EventEnvelope): Promise<string> {
    if (event.actor.type === 'system') return 'System';
    if (event.actor.type === 'member' && event.actor.id) {
      const name = await members.nameOf(event.teamId, event.actor.id);
      if (name !== null) return name;
    }
    return event.actor.type === 'key' ? `API key ${event.actor.id ?? ''}`.trim() : `Member ${event.actor.id ?? ''}`.trim();
  }

  /**
   * The actors' names of a batch's events, in order: one look-up per distinct actor of the batch
   * (members' names are also kept per process, bounded, when this is the sole instance: members.nameOf).
   */
  function actorNamesOf(events: EventEnvelope[]): Promise<string[]> {
    const byActor = new Map<string, Promise<string>>();
    return Promise.all(
      events.map((e) => {
        const key = `${e.teamId}:${e.actor.type}:${e.actor.id ?? ''}`;
        let name = byActor.get(key);
        if (!name) byActor.set(key, (name = actorNameOf(e)));
        return name;
      }),
    );
  }

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
  const END_KEPT_MS = 60_000;
  const ENDS_MAX = 10_000;
  function inTurn(chain: string, append: () => Promise<void>): Promise<void> {
    const run = (tails.get(chain) ?? Promise.resolve()).then(append);
    const tail = run.catch(() => {});
    tails.set(chain, tail);
    void tail.then(() => {
      if (tails.get(chain) === tail) tails.delete(chain);
    });
    return run;
  }

  const chainOf = (e: { teamId: string; mode: string }) => `${e.teamId}:${e.mode}`;

  /**
   * Appends `events` (one chain's, in order; `names` their actors' names) at the end of the chain in
   * ONE insert of consecutive entries: each takes the next sequence and the hash of the entry before
   * it, exactly as appending them one by one would. The insert is ordered: if it fails (a redelivered
   * event, another replica's append taking a sequence), the entries before the failing one are in the
   * chain, the rest are not, and the chain's end is read again by the next append.
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
    let sequence = last?.sequence ?? 0;
    let previousHash = last?.hash ?? null;
    const docs = events.map((event, i) => {
      const entry: Omit<Unscoped<AuditEntryDoc>, 'hash'> & { teamId: string; mode: 'test' | 'live' } = {
        _id: newId('audit'),
        teamId: event.teamId,
        mode: event.mode,
        eventId: event.id,
        action: event.type,
        resourceType: resourceTypeOf(event.type),
        resourceId: resourceIdOf(event.type, event.data),
        actorType: event.actor.type,
        actorId: event.actor.id,
        ...(event.actor.sessionId ? { actorSessionId: event.actor.sessionId } : {}),
        actorName: names[i]!,
        details: event.data,
        createdAt: new Date(event.occurredAt),
        sequence: sequence + 1,
        previousHash,
      };
      const { teamId: _t, mode: _m, ...doc } = entry;
      const hash = entryHash(entry);
      sequence = entry.sequence;
      previousHash = hash;
      return { ...doc, hash };
    });
    // Built here in full (and hashed as built): inserted lean, without mongoose hydration (docs/adr/0043).
    await db(scope).leanInsert(docs);
    if (ends.size >= ENDS_MAX) ends.delete(ends.keys().next().value!);
    ends.set(chain, { sequence, hash: previousHash!, at: Date.now() });
  }

  /** One event on its own: a duplicate that is this very event is done; a lost race for a sequence reads the end again and retries. */
  async function recordOne(event: EventEnvelope): Promise<void> {
    // No "already recorded?" read first: eventId is unique, so a redelivered event's insert fails
    // as a duplicate and is recognised below (docs/adr/0045).
    const names = await actorNamesOf([event]);
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
    const names = await actorNamesOf(events);
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

    /** Newest first, in the key's partition. */
    async list(ctx: RequestContext, q: ListAuditLogQuery): Promise<Page<ReturnType<typeof auditEntryView>>> {
      const filter: ScopedFilter<AuditEntryDoc> = {};
      if (q.action) filter.action = q.action;
      if (q.resourceType) filter.resourceType = q.resourceType;
      if (q.actorId) filter.actorId = q.actorId;
      const range: { $gte?: Date; $lte?: Date } = {};
      if (q.startDate) range.$gte = dateOf('startDate', q.startDate);
      if (q.endDate) {
        // A date alone covers that whole day.
        const end = dateOf('endDate', q.endDate);
        range.$lte = /^\d{4}-\d{2}-\d{2}$/.test(q.endDate) ? new Date(end.getTime() + 86_399_999) : end;
      }
      if (range.$gte && range.$lte && range.$gte > range.$lte) throw parameterInvalid('endDate', 'Invalid endDate: before startDate.');
      if (range.$gte || range.$lte) filter.createdAt = range;
      const { rows, pagination } = await findPage(db(ctx), filter, q, { sort: { sequence: -1 } });
      return { data: rows.map(auditEntryView), pagination };
    },

    /** Walks the chain in sequence order; the first entry whose hash, link or place is wrong breaks it. */
    async verify(ctx: RequestContext) {
      let previous: Pick<AuditEntryDoc, 'sequence' | 'hash'> | null = null;
      let checkedCount = 0;
      const broken = (e: AuditEntryDoc, reason: 'hash_mismatch' | 'previous_hash_mismatch' | 'sequence_gap') => ({
        object: 'audit_log_verification' as const, valid: false, checkedCount, firstBrokenEntryId: e._id, reason,
      });
      for await (const e of db(ctx).find({}).sort({ sequence: 1 }).lean<AuditEntryDoc[]>().cursor()) {
        const entry = e as AuditEntryDoc;
        checkedCount++;
        if (entryHash({ ...entry, teamId: ctx.teamId, mode: ctx.mode }) !== entry.hash) return broken(entry, 'hash_mismatch');
        // The oldest kept entry starts the chain (retention removed what came before it).
        if (previous) {
          if (entry.sequence !== previous.sequence + 1) return broken(entry, 'sequence_gap');
          if (entry.previousHash !== previous.hash) return broken(entry, 'previous_hash_mismatch');
        }
        previous = entry;
      }
      return { object: 'audit_log_verification' as const, valid: true, checkedCount, firstBrokenEntryId: null, reason: null };
    },
  };
}
export type AuditLogRules = ReturnType<typeof auditLogRules>;
