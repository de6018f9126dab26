import { EVENT_TYPES, isKnownEventType } from './events';

/**
 * What a webhook subscribes to: exact event types from the catalog (`ticket.created`), a whole
 * category (`ticket.*`: every type that starts with `ticket.`), or everything (`*`). These are not
 * AMQP topic patterns: `*` alone means every event, and `<category>.*` only exists for a category
 * the catalog has.
 */
export const CATEGORIES: ReadonlySet<string> = new Set(EVENT_TYPES.map((t) => t.slice(0, t.indexOf('.'))));

export const MAX_PATTERNS = 100;

/** Why a pattern is refused, or null when it is valid. */
export function patternProblem(pattern: string): string | null {
  if (pattern === '*' || isKnownEventType(pattern)) return null;
  if (pattern.endsWith('.*')) {
    const category = pattern.slice(0, -2);
    return CATEGORIES.has(category) ? null : `'${pattern}' names no known event category (${[...CATEGORIES].join(', ')})`;
  }
  return `'${pattern}' is not a known event type, a '<category>.*' pattern or '*'`;
}

export function matchesPattern(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return type.startsWith(pattern.slice(0, -1));
  return pattern === type;
}

export function subscribes(patterns: readonly string[], type: string): boolean {
  return patterns.some((p) => matchesPattern(p, type));
}

/** The same set of patterns, whatever the order or repetition: what the url+events uniqueness compares. */
export function patternsKey(patterns: readonly string[]): string {
  return [...new Set(patterns)].sort().join(',');
}
