import { WEEKDAYS, slaTierOf } from '@helpdesk/contracts';
import { addWorkingMinutes, workingMinutesBetween, type WorkingCalendar } from '../src/business-hours/working-time';
import { onAgentReply, onStatusChange, settleBreaches, startSla, nextDueAt, stopClocks } from '../src/sla/state';
import type { SlaRuleDoc } from '../src/sla/model';

const weekdays = (timezone: string, holidays: string[] = []): WorkingCalendar => ({
  timezone,
  schedule: Object.fromEntries(WEEKDAYS.map((d) => [d, { enabled: d !== 'saturday' && d !== 'sunday', start: '09:00', end: '18:00' }])) as WorkingCalendar['schedule'],
  holidays,
});
const rule = (over: Partial<SlaRuleDoc> = {}): SlaRuleDoc => ({
  _id: 'sla_test00000001',
  teamId: 't',
  mode: 'test',
  name: 'Normal',
  priorityKey: 'normal',
  responseTimeMinutes: 10,
  resolutionTimeMinutes: 60,
  use24x7: false,
  enabled: true,
  position: 0,
  createdAt: new Date(),
  updatedAt: new Date(),
  ...over,
});

/** Open 09:00–18:00 on weekdays: 5 minutes are left on Friday at 17:55. */
describe('working time', () => {
  it('Friday 17:55 + 10 business minutes is Monday 09:05 (Berlin, no DST change)', () => {
    expect(addWorkingMinutes(new Date('2026-01-16T16:55:00Z'), 10, weekdays('Europe/Berlin')).toISOString()).toBe('2026-01-19T08:05:00.000Z');
  });

  it('across the US DST change (Sunday 8 March 2026) Monday 09:05 is local time: 13:05Z, not 14:05Z', () => {
    const due = addWorkingMinutes(new Date('2026-03-06T22:55:00Z'), 10, weekdays('America/New_York'));
    expect(due.toISOString()).toBe('2026-03-09T13:05:00.000Z');
  });

  it('skips holidays and counts only open minutes between two instants', () => {
    const cal = weekdays('UTC', ['2026-01-19']);
    expect(addWorkingMinutes(new Date('2026-01-16T17:55:00Z'), 10, cal).toISOString()).toBe('2026-01-20T09:05:00.000Z');
    expect(workingMinutesBetween(new Date('2026-01-16T16:00:00Z'), new Date('2026-01-20T10:00:00Z'), cal)).toBe(180);
  });

  it('counts every minute without a calendar (24x7) or with one that never opens', () => {
    expect(addWorkingMinutes(new Date('2026-01-17T12:00:00Z'), 90, null).toISOString()).toBe('2026-01-17T13:30:00.000Z');
    const closed = { ...weekdays('UTC'), schedule: Object.fromEntries(WEEKDAYS.map((d) => [d, { enabled: false, start: '09:00', end: '17:00' }])) } as WorkingCalendar;
    expect(workingMinutesBetween(new Date('2026-01-17T12:00:00Z'), new Date('2026-01-17T13:00:00Z'), closed)).toBe(60);
  });
});

describe('SLA state', () => {
  const cal = weekdays('UTC');
  it('pauses while pending and resumes with the minutes left; a passed due time breaches once', () => {
    let sla = startSla(rule(), new Date('2026-01-19T09:00:00Z'), true, cal);
    expect(sla.firstResponse.dueAt?.toISOString()).toBe('2026-01-19T09:10:00.000Z');
    sla = onStatusChange(sla, 'open', 'pending', new Date('2026-01-19T09:04:00Z'), cal);
    expect(sla.firstResponse).toMatchObject({ status: 'paused', dueAt: null, consumedMinutes: 4 });
    expect(nextDueAt(sla)).toBeNull();
    sla = onStatusChange(sla, 'pending', 'open', new Date('2026-01-19T11:00:00Z'), cal);
    expect(sla.firstResponse.dueAt?.toISOString()).toBe('2026-01-19T11:06:00.000Z');
    const first = settleBreaches(sla, new Date('2026-01-19T11:06:00Z'));
    expect(first.breached).toEqual(['firstResponse']);
    expect(settleBreaches(first.sla, new Date('2026-01-19T11:07:00Z')).breached).toEqual([]);
  });

  it.each([
    ['gold: reply met, resolved within half the target', 5, 20, 'gold'],
    ['silver: both met, over half the target', 5, 45, 'silver'],
    ['bronze: resolution met, first response breached', 15, 45, 'bronze'],
    ['missed: resolution breached', 5, 70, 'missed'],
  ])('%s', (_name, replyAfter, resolveAfter, tier) => {
    const t0 = new Date('2026-01-19T09:00:00Z').getTime();
    const at = (m: number) => new Date(t0 + m * 60_000);
    let sla = startSla(rule(), at(0), true, cal);
    sla = settleBreaches(sla, at(replyAfter)).sla;
    sla = onAgentReply(sla, at(replyAfter), cal);
    expect(slaTierOf(sla)).toBeNull(); // not resolved yet
    sla = settleBreaches(sla, at(resolveAfter)).sla;
    sla = onStatusChange(sla, 'open', 'resolved', at(resolveAfter), cal);
    expect(slaTierOf(sla)).toBe(tier);
  });

  it('bronze when resolved without any reply; null without a rule', () => {
    let sla = startSla(rule(), new Date('2026-01-19T09:00:00Z'), true, cal);
    sla = onStatusChange(sla, 'open', 'closed', new Date('2026-01-19T09:05:00Z'), cal);
    expect(slaTierOf(sla)).toBe('bronze');
    expect(slaTierOf(null)).toBeNull();
  });

  it('a merged ticket\'s clocks stop with the minutes used and nothing left to breach', () => {
    const sla = stopClocks(startSla(rule(), new Date('2026-01-19T09:00:00Z'), true, cal), new Date('2026-01-19T09:03:00Z'), cal);
    expect(sla.firstResponse).toMatchObject({ status: 'paused', dueAt: null, consumedMinutes: 3 });
    expect(nextDueAt(sla)).toBeNull();
  });
});
