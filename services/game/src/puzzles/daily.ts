import { createHash } from 'node:crypto';

/**
 * The daily triage puzzle: four ticket summaries drawn for the UTC day (the same for everyone); the
 * answer is their keys, most urgent first. Urgency is the one a support lead would apply: outages
 * and security before money, money before a single blocked user, questions last.
 */
const POOL: readonly { summary: string; urgency: number }[] = [
  { summary: 'The whole checkout is down for every customer', urgency: 100 },
  { summary: 'A customer reports their account was logged into from abroad', urgency: 95 },
  { summary: 'Payments are charged twice for some orders', urgency: 90 },
  { summary: 'The enterprise customer\'s SSO stopped working this morning', urgency: 85 },
  { summary: 'An invoice shows the wrong VAT rate', urgency: 70 },
  { summary: 'A user cannot reset their password', urgency: 60 },
  { summary: 'Exports time out for large date ranges', urgency: 50 },
  { summary: 'The mobile app crashes when opening settings', urgency: 45 },
  { summary: 'A customer asks for a copy of last year\'s invoices', urgency: 30 },
  { summary: 'The logo looks blurry on the login page', urgency: 20 },
  { summary: 'How do I change my notification email?', urgency: 10 },
  { summary: 'A feature idea: dark mode for the dashboard', urgency: 5 },
];
const KEYS = ['A', 'B', 'C', 'D'] as const;
export const PUZZLE_REWARDS = { xp: 30, gold: 10 };

/** The day's four items: a permutation seeded by the day. */
export function puzzleOf(dayId: string) {
  const seed = createHash('sha256').update(`triage:${dayId}`).digest();
  const order = POOL.map((item, i) => ({ item, rank: seed.readUInt16BE((i * 2) % (seed.length - 1)) ^ (i * 7919) })).sort((a, b) => a.rank - b.rank);
  const items = order.slice(0, 4).map((o, i) => ({ key: KEYS[i]!, ...o.item }));
  const answer = [...items].sort((a, b) => b.urgency - a.urgency).map((i) => i.key);
  return { id: `puzzle_${dayId}`, date: dayId, items, answer };
}

export type Puzzle = ReturnType<typeof puzzleOf>;
