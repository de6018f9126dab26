import { PUZZLE_REWARDS, type Puzzle } from './daily';

/** The day's puzzle as a member sees it (`mine`: their answer; undefined: no member named). */
export const puzzleView = (p: Puzzle, mine: { correct: boolean } | null | undefined) => ({
  id: p.id,
  date: p.date,
  prompt: 'Order these tickets as you would handle them: most urgent first. Answer with their keys.',
  tickets: p.items.map((i) => ({ key: i.key, summary: i.summary })),
  rewards: { ...PUZZLE_REWARDS },
  answered: mine === undefined ? null : !!mine,
  correct: mine === undefined ? null : (mine?.correct ?? null),
});
