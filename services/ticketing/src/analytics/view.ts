import { PRIORITIES, type AgentAnalyticsView, type AnalyticsQuery, type AnalyticsView } from '@helpdesk/contracts';

export const CLOSED = ['resolved', 'closed'];
const OPEN = ['open', 'pending'];

/** One group of the overview's pass over the facts: a (status, priority[, day]) with its timing sums. */
export interface OverviewGroup {
  _id: { s: string; p: string; d?: string };
  n: number;
  rN: number;
  rMs: number;
  cN: number;
  cMs: number;
}

/** One agent's row of the agents' pass over the facts. */
export interface AgentRow {
  _id: string;
  assigned: number;
  closed: number;
  response: number | null;
  resolution: number | null;
  gold: number;
  silver: number;
  bronze: number;
  missed: number;
}

const timing = (n: number, sumMs: number) => ({ avgSeconds: n ? Math.round(sumMs / n) / 1000 : null, samplesCount: n });
const round = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 1000);

/** The overview from its groups (without the time series); `created`: tickets created per day, for the series. */
export function overviewView(q: AnalyticsQuery, start: Date, end: Date, groups: OverviewGroup[]): { view: AnalyticsView; created: Map<string, number> } {
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
  return { view, created };
}

export function agentsView(start: Date, end: Date, rows: AgentRow[], names: Map<string, string>): AgentAnalyticsView {
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
}
