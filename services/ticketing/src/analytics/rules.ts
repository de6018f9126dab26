import {
  ANALYTICS_RANGE_DAYS_MAX,
  PRIORITIES,
  SLA_TIERS,
  slaTierOf,
  type AgentAnalyticsQuery,
  type AgentAnalyticsView,
  type AnalyticsPeriod,
  type AnalyticsQuery,
  type AnalyticsView,
  type EventEnvelope,
  type SlaTierInput,
  type TicketSnapshot,
} from '@helpdesk/contracts';
import { bulkWriteInScopes, microBatches, parameterInvalid, parameterMissing, scoped, type BulkOpInScope, type RequestContext, type Scope } from '@helpdesk/kit';
import type { Clock } from '../clock';
import type { TicketingModels } from '../models';

const DAY_MS = 86_400_000;
/** The rolling periods, each ending now (docs/adr/0030). */
const PERIOD_DAYS: Record<Exclude<AnalyticsPeriod, 'custom'>, number> = { day: 1, week: 7, month: 30, quarter: 90, year: 365 };
const AGENTS_DEFAULT_DAYS = 30;
const CLOSED = ['resolved', 'closed'];
const OPEN = ['open', 'pending'];

/** A date-only value is midnight UTC; `endDate` given as a date covers that whole day. */
function parseDate(value: string, end: boolean): Date {
  const d = new Date(value);
  return end && /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(d.getTime() + DAY_MS) : d;
}

function rangeOf(startDate: string | undefined, endDate: string | undefined, fallbackDays: number, now: Date) {
  const end = endDate ? parseDate(endDate, true) : now;
  const start = startDate ? parseDate(startDate, false) : new Date(end.getTime() - fallbackDays * DAY_MS);
  if (start >= end) throw parameterInvalid('endDate', 'Invalid endDate: must be after startDate.');
  if (end.getTime() - start.getTime() > ANALYTICS_RANGE_DAYS_MAX * DAY_MS) {
    throw parameterInvalid('startDate', `Invalid startDate: a range spans at most ${ANALYTICS_RANGE_DAYS_MAX} days.`);
  }
  return { start, end };
}

/** Seconds between two dates, averaged in the database: `{avgSeconds, samplesCount}` (null average without samples). */
const avgSeconds = (from: string, to: string) => ({ $avg: { $divide: [{ $subtract: [`$${to}`, `$${from}`] }, 1000] } });
/** `<p>N` (how many facts have `field`) and `<p>Ms` (the sum of `field` − createdAt) as $group accumulators. */
const timingSums = (p: string, field: string) => {
  const has = { $eq: [{ $type: `$${field}` }, 'date'] };
  return { [`${p}N`]: { $sum: { $cond: [has, 1, 0] } }, [`${p}Ms`]: { $sum: { $cond: [has, { $subtract: [`$${field}`, '$createdAt'] }, 0] } } };
};
const timing = (n: number, sumMs: number) => ({ avgSeconds: n ? Math.round(sumMs / n) / 1000 : null, samplesCount: n });
const round = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 1000);

/** The UTC days from `start` to `end`, as `YYYY-MM-DD`. */
function days(start: Date, end: Date): string[] {
  const out: string[] = [];
  for (let t = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate()); t < end.getTime(); t += DAY_MS) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}

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

/** Analytics over the partition's ticket facts (docs/adr/0030). */
export function analyticsRules({ models, clock }: { models: TicketingModels; clock: Clock }) {
  /** Members' names from ticketing's member projection (members are per team, not per partition). */
  async function memberNames(teamId: string, ids: string[]): Promise<Map<string, string>> {
    if (!ids.length) return new Map();
    const rows = await scoped(models, { teamId }).memberRefs.find({ _id: { $in: ids } }, { name: 1 }).lean<{ _id: string; name: string }[]>();
    return new Map(rows.map((r) => [r._id, r.name]));
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
  async function applyFacts(changes: readonly FactChange[]): Promise<void> {
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
    let rest = ops;
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

  const facts = microBatches(applyFacts);

  return {
    async overview(ctx: RequestContext, q: AnalyticsQuery): Promise<AnalyticsView> {
      const now = clock.now();
      if (q.period === 'custom') {
        if (!q.startDate) throw parameterMissing('startDate', 'Missing required parameter: startDate (period=custom needs startDate and endDate).');
        if (!q.endDate) throw parameterMissing('endDate', 'Missing required parameter: endDate (period=custom needs startDate and endDate).');
      } else if (q.startDate || q.endDate) {
        throw parameterInvalid(q.startDate ? 'startDate' : 'endDate', 'Invalid request: startDate and endDate are only accepted with period=custom.');
      }
      const { start, end } = rangeOf(q.startDate, q.endDate, q.period === 'custom' ? 0 : PERIOD_DAYS[q.period], now);
      const db = scoped(models, ctx);
      // One pass over the range's facts: a group per (status, priority[, day]) with the timing sums.
      const groups = await db.ticketFacts.aggregate<{ _id: { s: string; p: string; d?: string }; n: number; rN: number; rMs: number; cN: number; cMs: number }>([
        { $match: { createdAt: { $gte: start, $lt: end } } },
        {
          $group: {
            _id: { s: '$status', p: '$priority', ...(q.type === 'timeseries' ? { d: { $dateToString: { format: '%Y-%m-%d', date: '$createdAt' } } } : {}) },
            n: { $sum: 1 },
            ...timingSums('r', 'firstResponseAt'),
            ...timingSums('c', 'closedAt'),
          },
        },
      ]);
      const statusBreakdown: Record<string, number> = {};
      const priorities = Object.fromEntries(PRIORITIES.map((p) => [p, 0])) as AnalyticsView['priorities'];
      const created = new Map<string, number>();
      const sums = { rN: 0, rMs: 0, cN: 0, cMs: 0 };
      for (const g of groups) {
        statusBreakdown[g._id.s] = (statusBreakdown[g._id.s] ?? 0) + g.n;
        if (g._id.p in priorities) priorities[g._id.p as keyof typeof priorities] += g.n;
        if (g._id.d) created.set(g._id.d, (created.get(g._id.d) ?? 0) + g.n);
        for (const k of ['rN', 'rMs', 'cN', 'cMs'] as const) sums[k] += g[k];
      }
      const count = (statuses: string[]) => statuses.reduce((n, s) => n + (statusBreakdown[s] ?? 0), 0);
      const view: AnalyticsView = {
        object: 'analytics',
        type: q.type,
        period: q.period,
        startDate: start.toISOString(),
        endDate: end.toISOString(),
        tickets: { total: Object.values(statusBreakdown).reduce((a, b) => a + b, 0), new: statusBreakdown.new ?? 0, closed: count(CLOSED), open: count(OPEN) },
        priorities,
        statusBreakdown,
        responseTime: timing(sums.rN, sums.rMs),
        resolutionTime: timing(sums.cN, sums.cMs),
      };
      if (q.type === 'timeseries') {
        // Closed per day counts every ticket closed in the range, whenever it was created.
        const closedRows = await db.ticketFacts.aggregate<{ _id: string; n: number }>([
          { $match: { closedAt: { $gte: start, $lt: end } } },
          { $group: { _id: { $dateToString: { format: '%Y-%m-%d', date: '$closedAt' } }, n: { $sum: 1 } } },
        ]);
        const closed = new Map(closedRows.map((r) => [r._id, r.n]));
        view.series = days(start, end).map((date) => ({ date, created: created.get(date) ?? 0, closed: closed.get(date) ?? 0 }));
      }
      return view;
    },

    async agents(ctx: RequestContext, q: AgentAnalyticsQuery): Promise<AgentAnalyticsView> {
      const { start, end } = rangeOf(q.startDate, q.endDate, AGENTS_DEFAULT_DAYS, clock.now());
      const tierCounts = Object.fromEntries(SLA_TIERS.map((t) => [t, { $sum: { $cond: [{ $eq: ['$slaTier', t] }, 1, 0] } }]));
      const rows = await scoped(models, ctx).ticketFacts.aggregate<{
        _id: string; assigned: number; closed: number; response: number | null; resolution: number | null; gold: number; silver: number; bronze: number; missed: number;
      }>([
        { $match: { createdAt: { $gte: start, $lt: end }, assignedTo: { $ne: null } } },
        {
          $group: {
            _id: '$assignedTo',
            assigned: { $sum: 1 },
            closed: { $sum: { $cond: [{ $in: ['$status', CLOSED] }, 1, 0] } },
            response: avgSeconds('createdAt', 'firstResponseAt'),
            resolution: avgSeconds('createdAt', 'closedAt'),
            ...tierCounts,
          },
        },
        { $sort: { assigned: -1, _id: 1 } },
      ]);
      const names = await memberNames(ctx.teamId, rows.map((r) => r._id));
      return {
        object: 'analytics.agents',
        startDate: start.toISOString(),
        endDate: end.toISOString(),
        data: rows.map((r) => ({
          agentId: r._id,
          name: names.get(r._id) ?? r._id,
          ticketsAssigned: r.assigned,
          ticketsClosed: r.closed,
          avgResponseSeconds: round(r.response),
          avgResolutionSeconds: round(r.resolution),
          slaTiers: { gold: r.gold, silver: r.silver, bronze: r.bronze, missed: r.missed },
        })),
      };
    },

    /**
     * The consumers' way in (docs/adr/0030): the fact changes that arrive together (what the bus has in
     * flight) are applied as ONE ordered bulk write; each submitter resolves once its batch is written.
     * See `applyFacts`.
     */
    facts,
    /** One batch written now (a batch of one is the rule one event at a time), for tests. */
    applyFacts,
  };
}

export type AnalyticsRules = ReturnType<typeof analyticsRules>;
