import { SLA_TIERS, type AgentAnalyticsQuery, type AgentAnalyticsView } from '@helpdesk/contracts';
import { scoped, type RequestContext } from '@helpdesk/kit';
import type { Clock } from '../clock';
import type { TicketingModels } from '../collections';
import { rangeOf } from './range';
import { agentsView, CLOSED, type AgentRow } from './view';

const AGENTS_DEFAULT_DAYS = 30;

/** Seconds between two dates, averaged in the database: `{avgSeconds, samplesCount}` (null average without samples). */
const avgSeconds = (from: string, to: string) => ({ $avg: { $divide: [{ $subtract: [`$${to}`, `$${from}`] }, 1000] } });

/** Members' names from ticketing's member projection (members are per team, not per partition). */
async function memberNames(models: TicketingModels, teamId: string, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await scoped(models, { teamId }).memberRefs.find({ _id: { $in: ids } }, { name: 1 }).lean<{ _id: string; name: string }[]>();
  return new Map(rows.map((r) => [r._id, r.name]));
}

/** `GET /analytics/agents` (docs/adr/0030): per assignee, the tickets created in the range, their times and SLA tiers. */
export async function agentAnalytics({ models, clock }: { models: TicketingModels; clock: Clock }, ctx: RequestContext, q: AgentAnalyticsQuery): Promise<AgentAnalyticsView> {
  const { start, end } = rangeOf(q.startDate, q.endDate, AGENTS_DEFAULT_DAYS, clock.now());
  const tierCounts = Object.fromEntries(SLA_TIERS.map((t) => [t, { $sum: { $cond: [{ $eq: ['$slaTier', t] }, 1, 0] } }]));
  const rows = await scoped(models, ctx).ticketFacts.aggregate<AgentRow>([
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
  return agentsView(start, end, rows, await memberNames(models, ctx.teamId, rows.map((r) => r._id)));
}
