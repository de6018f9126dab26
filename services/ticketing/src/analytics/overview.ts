import type { AnalyticsQuery, AnalyticsView } from '@helpdesk/contracts';
import { parameterInvalid, parameterMissing, scoped, type RequestContext } from '@helpdesk/kit';
import type { Clock } from '../clock';
import type { TicketingModels } from '../collections';
import { days, PERIOD_DAYS, rangeOf } from './range';
import { overviewView, type OverviewGroup } from './view';

/** `<p>N` (how many facts have `field`) and `<p>Ms` (the sum of `field` − createdAt) as $group accumulators. */
const timingSums = (p: string, field: string) => {
  const has = { $eq: [{ $type: `$${field}` }, 'date'] };
  return { [`${p}N`]: { $sum: { $cond: [has, 1, 0] } }, [`${p}Ms`]: { $sum: { $cond: [has, { $subtract: [`$${field}`, '$createdAt'] }, 0] } } };
};

/** `period=custom` takes both dates, the rolling periods neither (400). */
function checkDates(q: AnalyticsQuery): void {
  if (q.period === 'custom') {
    if (!q.startDate) throw parameterMissing('startDate', 'Missing required parameter: startDate (period=custom needs startDate and endDate).');
    if (!q.endDate) throw parameterMissing('endDate', 'Missing required parameter: endDate (period=custom needs startDate and endDate).');
  } else if (q.startDate || q.endDate) {
    throw parameterInvalid(q.startDate ? 'startDate' : 'endDate', 'Invalid request: startDate and endDate are only accepted with period=custom.');
  }
}

/** `GET /analytics` (docs/adr/0030): the tickets created in the range, from the partition's facts; per day with `type=timeseries`. */
export async function analyticsOverview({ models, clock }: { models: TicketingModels; clock: Clock }, ctx: RequestContext, q: AnalyticsQuery): Promise<AnalyticsView> {
  const now = clock.now();
  checkDates(q);
  const { start, end } = rangeOf(q.startDate, q.endDate, q.period === 'custom' ? 0 : PERIOD_DAYS[q.period], now);
  const db = scoped(models, ctx);
  // One pass over the range's facts: a group per (status, priority[, day]) with the timing sums.
  const groups = await db.ticketFacts.aggregate<OverviewGroup>([
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
  const { view, created } = overviewView(q, start, end, groups);
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
}
