/** The automation operators and the local AI provider's text rules, as pure functions (docs/adr/0028, 0029). */
import type { TicketSnapshot } from '@helpdesk/contracts';
import { evaluateCondition, evaluateConditions, type Subject } from '../src/automations/conditions';
import { cleanUp, keywords, localProvider } from '../src/ai/local-provider';

const ticket: TicketSnapshot = {
  id: 'tkt_1', title: 'Printer on FIRE', status: 'open', priority: 'high', customerId: null, assignedTo: null, tags: ['VIP', 'hardware'],
  notes: null, messageCount: 3, metadata: {}, channel: 'email', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z',
  resolvedAt: null, closedAt: null,
};
const s: Subject = { ticket };
const check = (field: any, operator: any, value?: unknown, subject = s) => evaluateCondition({ field, operator, value: value as any }, subject);

describe('condition operators', () => {
  it('equals / not_equals: strings case-insensitively, a one-element list equals its element', () => {
    expect(check('status', 'equals', 'OPEN')).toBe(true);
    expect(check('status', 'not_equals', 'open')).toBe(false);
    expect(check('tags', 'equals', 'vip')).toBe(false);
    expect(check('messageCount', 'equals', 3)).toBe(true);
  });

  it('contains / in: substrings, or membership for lists', () => {
    expect(check('title', 'contains', 'fire')).toBe(true);
    expect(check('tags', 'contains', 'vip')).toBe(true);
    expect(check('tags', 'not_contains', 'billing')).toBe(true);
    expect(check('priority', 'in', ['urgent', 'high'])).toBe(true);
    expect(check('tags', 'in', ['billing', 'hardware'])).toBe(true);
    expect(check('tags', 'not_in', ['billing'])).toBe(true);
  });

  it('greater_than / less_than on numbers only; is_empty on null, "" and []', () => {
    expect(check('messageCount', 'greater_than', 2)).toBe(true);
    expect(check('messageCount', 'less_than', 3)).toBe(false);
    expect(check('title', 'greater_than', 1)).toBe(false);
    expect(check('assignedTo', 'is_empty')).toBe(true);
    expect(check('tags', 'is_not_empty')).toBe(true);
    expect(check('message.content', 'is_empty')).toBe(true);
  });

  it('changed / changed_to / changed_from read the event; without one, changed_to reads the current value', () => {
    const event: Subject = { ticket: { ...ticket, priority: 'low' }, changes: ['priority'], previous: { priority: 'normal' }, eventTicket: ticket };
    expect(check('priority', 'changed', undefined, event)).toBe(true);
    expect(check('status', 'changed', undefined, event)).toBe(false);
    expect(check('priority', 'changed_to', 'high', event)).toBe(true);
    expect(check('priority', 'changed_from', 'normal', event)).toBe(true);
    expect(check('priority', 'changed_to', 'high')).toBe(true);
    expect(check('priority', 'changed', undefined)).toBe(false);
  });

  it('all must pass; any needs one pass when not empty', () => {
    const yes = { field: 'status', operator: 'equals', value: 'open' } as const;
    const no = { field: 'status', operator: 'equals', value: 'closed' } as const;
    expect(evaluateConditions({ all: [], any: [] }, s).matched).toBe(true);
    expect(evaluateConditions({ all: [yes], any: [no, yes] }, s).matched).toBe(true);
    expect(evaluateConditions({ all: [yes, no], any: [] }, s).matched).toBe(false);
    expect(evaluateConditions({ all: [yes], any: [no] }, s).results).toEqual({
      all: [{ field: 'status', operator: 'equals', passed: true }], any: [{ field: 'status', operator: 'equals', passed: false }],
    });
  });
});

describe('the local AI provider', () => {
  it('keywords drop short words and stopwords; cleanUp fixes spacing, case and punctuation', () => {
    expect(keywords('The printer is ON fire, please help!')).toEqual(['printer', 'fire', 'help']);
    expect(cleanUp('hi   there ,  i am here!!!  thanks')).toBe('Hi there, I am here! Thanks.');
    expect(cleanUp("i'm done.")).toBe("I'm done.");
  });

  it('auto-tag proposes known tags the thread mentions (multi-word tags too), not those already on the ticket', async () => {
    const r = await localProvider().run({
      action: 'auto-tag',
      ticket: { title: 'Billing issue again', customerName: null, tags: ['urgent'] },
      thread: [{ sender: 'customer', content: 'My invoice is wrong and it is urgent', isInternal: false }],
      knownTags: ['urgent', 'billing-issue', 'invoice', 'shipping'],
    });
    expect(r).toEqual({ tags: ['billing-issue', 'invoice'] });
  });
});
