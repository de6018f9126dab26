import { z } from 'zod';
import { defineOperations } from '../operation';

/** Ticket analytics (docs/adr/0030). */

export const ANALYTICS_TYPES = ['overview', 'timeseries'] as const;
export const ANALYTICS_PERIODS = ['day', 'week', 'month', 'quarter', 'year', 'custom'] as const;
export type AnalyticsPeriod = (typeof ANALYTICS_PERIODS)[number];
/** A custom range or the agents' range spans at most this many days (the time series has one point a day). */
export const ANALYTICS_RANGE_DAYS_MAX = 366;

const dateParam = z.iso.datetime({ offset: true }).or(z.iso.date());

export const analyticsQuery = z.strictObject({
  type: z.enum(ANALYTICS_TYPES).optional().default('overview'),
  period: z.enum(ANALYTICS_PERIODS).optional().default('week'),
  startDate: dateParam.optional(),
  endDate: dateParam.optional(),
});
export type AnalyticsQuery = z.output<typeof analyticsQuery>;

export const agentAnalyticsQuery = z.strictObject({ startDate: dateParam.optional(), endDate: dateParam.optional() });
export type AgentAnalyticsQuery = z.output<typeof agentAnalyticsQuery>;

const timing = z.object({ avgSeconds: z.number().nullable(), samplesCount: z.number().int() });
const ticketCounts = z.object({ total: z.number().int(), new: z.number().int(), closed: z.number().int(), open: z.number().int() });

export const analyticsSchema = z
  .object({
    object: z.literal('analytics'),
    type: z.enum(ANALYTICS_TYPES),
    period: z.enum(ANALYTICS_PERIODS),
    startDate: z.string().datetime(),
    endDate: z.string().datetime(),
    tickets: ticketCounts,
    priorities: z.object({ low: z.number().int(), normal: z.number().int(), high: z.number().int(), urgent: z.number().int() }),
    statusBreakdown: z.record(z.string(), z.number().int()),
    responseTime: timing,
    resolutionTime: timing,
    /** `type=timeseries` only: one point per UTC day of the range, oldest first, days without tickets included. */
    series: z
      .array(z.object({ date: z.string(), created: z.number().int(), closed: z.number().int() }))
      .optional(),
  })
  .meta({ id: 'Analytics' });
export type AnalyticsView = z.output<typeof analyticsSchema>;

export const agentAnalyticsSchema = z
  .object({
    object: z.literal('analytics.agents'),
    startDate: z.string().datetime(),
    endDate: z.string().datetime(),
    data: z.array(
      z.object({
        agentId: z.string(),
        name: z.string(),
        ticketsAssigned: z.number().int(),
        ticketsClosed: z.number().int(),
        avgResponseSeconds: z.number().nullable(),
        avgResolutionSeconds: z.number().nullable(),
        slaTiers: z.object({ gold: z.number().int(), silver: z.number().int(), bronze: z.number().int(), missed: z.number().int() }),
      }),
    ),
  })
  .meta({ id: 'AgentAnalytics' });
export type AgentAnalyticsView = z.output<typeof agentAnalyticsSchema>;

export const ANALYTICS = defineOperations({
  getAnalytics: {
    service: 'ticketing',
    tag: 'Analytics',
    keys: 'staff',
    permission: 'view_analytics',
    method: 'GET',
    path: '/teams/{teamId}/analytics',
    summary: 'Ticket analytics for a period',
    description:
      '`type`: `overview` (default) or `timeseries` (the overview plus `series`, one point per UTC day). `period`: `day` (last 24 h), ' +
      '`week` (default, last 7 days), `month` (30 days), `quarter` (90 days), `year` (365 days), each ending now, or `custom` with ' +
      '`startDate` and `endDate` (ISO 8601, start before end, at most 366 days). Counts are over tickets created in the range, by their ' +
      'status now: `new`, `open` (open or pending), `closed` (resolved or closed); `total` all of them. `responseTime`: the first public ' +
      'agent or AI reply added after creation; `resolutionTime`: creation to resolved/closed; averages null without samples. Only the key\'s ' +
      'partition (docs/adr/0030).',
    params: { teamId: 'team' },
    query: analyticsQuery,
    success: { status: 200, data: analyticsSchema, shape: 'envelope' },
    errors: ['parameter_missing', 'parameter_invalid'],
  },
  getAgentAnalytics: {
    service: 'ticketing',
    tag: 'Analytics',
    keys: 'staff',
    permission: 'view_analytics',
    method: 'GET',
    path: '/teams/{teamId}/analytics/agents',
    summary: 'Per-agent analytics',
    description:
      'Over tickets created between `startDate` and `endDate` (default: the last 30 days), grouped by their assignee now. ' +
      '`ticketsClosed`: those resolved or closed; `avgResponseSeconds`, `avgResolutionSeconds` as in the overview; `slaTiers` counts ' +
      'the tier of each closed ticket with an SLA (gold: both targets met and resolved within half the resolution target; silver: ' +
      'both met; bronze: resolution met, first response late; missed: resolution breached). Agents without tickets are not listed.',
    params: { teamId: 'team' },
    query: agentAnalyticsQuery,
    success: { status: 200, data: agentAnalyticsSchema, shape: 'envelope' },
    errors: ['parameter_invalid'],
  },
});
