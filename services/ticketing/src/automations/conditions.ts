import type { ConditionField, ConditionInput, MessageSnapshot, TicketSnapshot } from '@helpdesk/contracts';

/** What conditions read: the ticket, and from the triggering event its new message and its change list. */
export interface Subject {
  ticket: TicketSnapshot;
  message?: MessageSnapshot;
  /** The fields a `ticket.updated` changed, and their values before (absent for other events and dry runs). */
  changes?: string[];
  previous?: Record<string, unknown>;
  /** The ticket as the triggering event carries it: what `changed_to` reads (the ticket may have moved on since). */
  eventTicket?: TicketSnapshot;
}

export interface ConditionResult {
  field: string;
  operator: string;
  passed: boolean;
}

function valueOf(s: Subject, field: ConditionField): unknown {
  if (field.startsWith('message.')) return s.message ? s.message[field.slice('message.'.length) as keyof MessageSnapshot] : undefined;
  return s.ticket[field as keyof TicketSnapshot];
}

/** Strings compare case-insensitively (a tag `VIP` equals `vip`), everything else exactly. */
const norm = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);
const same = (a: unknown, b: unknown) => norm(a) === norm(b);

function contains(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(actual)) return actual.some((a) => same(a, expected));
  if (typeof actual === 'string' && typeof expected === 'string') return actual.toLowerCase().includes(expected.toLowerCase());
  return false;
}

const isEmpty = (v: unknown) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
const equals = (actual: unknown, expected: unknown) =>
  Array.isArray(actual) ? actual.length === 1 && same(actual[0], expected) : same(actual, expected);

/** One condition against a subject (the operators: docs/adr/0028). */
export function evaluateCondition(c: ConditionInput, s: Subject): boolean {
  const actual = valueOf(s, c.field);
  const changed = !!s.changes?.includes(c.field);
  switch (c.operator) {
    case 'equals':
      return equals(actual, c.value);
    case 'not_equals':
      return !equals(actual, c.value);
    case 'contains':
      return contains(actual, c.value);
    case 'not_contains':
      return !contains(actual, c.value);
    case 'in':
      return (c.value as unknown[]).some((v) => (Array.isArray(actual) ? contains(actual, v) : same(actual, v)));
    case 'not_in':
      return !(c.value as unknown[]).some((v) => (Array.isArray(actual) ? contains(actual, v) : same(actual, v)));
    case 'greater_than':
      return typeof actual === 'number' && actual > (c.value as number);
    case 'less_than':
      return typeof actual === 'number' && actual < (c.value as number);
    case 'is_empty':
      return isEmpty(actual);
    case 'is_not_empty':
      return !isEmpty(actual);
    case 'changed':
      return changed;
    case 'changed_to':
      // The value the event changed it to; without a change list (a dry run, other events): the current value.
      if (s.changes === undefined) return equals(actual, c.value);
      return changed && equals(valueOf({ ...s, ticket: s.eventTicket ?? s.ticket }, c.field), c.value);
    case 'changed_from':
      return changed && equals(s.previous?.[c.field], c.value);
  }
}

/** Every `all` passes and, when `any` is non-empty, at least one `any` passes. */
export function evaluateConditions(conditions: { all: ConditionInput[]; any: ConditionInput[] }, s: Subject) {
  const run = (list: ConditionInput[]): ConditionResult[] => list.map((c) => ({ field: c.field, operator: c.operator, passed: evaluateCondition(c, s) }));
  const all = run(conditions.all);
  const any = run(conditions.any);
  const matched = all.every((r) => r.passed) && (any.length === 0 || any.some((r) => r.passed));
  return { matched, results: { all, any } };
}
