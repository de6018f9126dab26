import type mongoose from 'mongoose';
import type { EventEnvelope, ListAuditLogQuery, Page } from '@helpdesk/contracts';
import { findPage, leanInsert, newId, parameterInvalid, retrying, scoped, type RequestContext, type Scope, type Unscoped } from '@helpdesk/kit';
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

  return {
    /** Appends the event's entry at the end of its chain; a redelivered event is already there and is skipped. */
    async record(event: EventEnvelope): Promise<void> {
      const entries = db(event);
      const chain = `${event.teamId}:${event.mode}`;
      // No "already recorded?" read first: eventId is unique, so a redelivered event's insert fails
      // as a duplicate and is recognised below (docs/adr/0045).
      const actorName = await actorNameOf(event);
      const append = async () => {
        const known = ends.get(chain);
        const last =
          known && Date.now() - known.at < END_KEPT_MS
            ? known
            : await entries.findOne({}, { sequence: 1, hash: 1 }).sort({ sequence: -1 }).lean<Pick<AuditEntryDoc, 'sequence' | 'hash'>>();
        ends.delete(chain);
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
          actorName,
          details: event.data,
          createdAt: new Date(event.occurredAt),
          sequence: (last?.sequence ?? 0) + 1,
          previousHash: last?.hash ?? null,
        };
        const { teamId: _t, mode: _m, ...doc } = entry;
        const hash = entryHash(entry);
        // Built here in full (and hashed as built): inserted lean, without mongoose hydration (docs/adr/0043).
        await leanInsert(models.auditEntries, [{ ...doc, hash }], { scope: event });
        if (ends.size >= ENDS_MAX) ends.delete(ends.keys().next().value!);
        ends.set(chain, { sequence: entry.sequence, hash, at: Date.now() });
      };
      await inTurn(chain, () =>
        retrying(
          () =>
            append().catch(async (err) => {
              // The same event appended meanwhile (a concurrent redelivery): nothing to do.
              if (isDuplicate(err) && (await entries.exists({ eventId: event.id }))) return;
              throw err;
            }),
          isDuplicate,
          APPEND_RETRIES,
        ),
      );
    },

    /** Newest first, in the key's partition. */
    async list(ctx: RequestContext, q: ListAuditLogQuery): Promise<Page<ReturnType<typeof auditEntryView>>> {
      const filter: mongoose.QueryFilter<AuditEntryDoc> = {};
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
