import Sentiment from 'sentiment';
import type { ScoredMessage, Sentiment as Label } from './model';

/**
 * The calculated sentiment (docs/adr/0006): every public message the customer writes is scored with
 * the AFINN-165 word list (`sentiment` package); its comparative score is the sum of its words'
 * scores divided by its number of words. The customer keeps the SCORES_KEPT newest scores (by the
 * message's time, so the order events arrive in does not matter); their average decides:
 * ≥ 0.05 positive, ≤ -0.05 negative, neutral otherwise (and with no messages).
 *
 *   "Great, thank you so much!"        → +1.00          one such message: positive
 *   "My order arrived damaged"          → -0.75          one such message: negative
 *   "Where is my order?"                →  0             neutral; it also pulls an average toward 0
 */
export const SCORES_KEPT = 10;
export const POSITIVE_AT = 0.05;
export const NEGATIVE_AT = -0.05;

const analyzer = new Sentiment();

/** A message's comparative score (0 for text without any scored word). */
export function scoreMessage(content: string): number {
  const { comparative } = analyzer.analyze(content);
  return Number.isFinite(comparative) ? comparative : 0;
}

export function labelOf(scores: Pick<ScoredMessage, 'score'>[]): Label {
  if (!scores.length) return 'neutral';
  const avg = scores.reduce((sum, s) => sum + s.score, 0) / scores.length;
  if (avg >= POSITIVE_AT) return 'positive';
  if (avg <= NEGATIVE_AT) return 'negative';
  return 'neutral';
}

/** Adds scored messages to the kept ones: newest SCORES_KEPT by time (then message id), oldest first; a message already scored is not counted twice. */
export function keepNewest(kept: ScoredMessage[], added: ScoredMessage[]): ScoredMessage[] {
  const seen = new Set(kept.map((s) => s.messageId));
  const all = [...kept, ...added.filter((s) => !seen.has(s.messageId))];
  all.sort((a, b) => new Date(a.at).getTime() - new Date(b.at).getTime() || (a.messageId < b.messageId ? -1 : a.messageId > b.messageId ? 1 : 0));
  return all.slice(-SCORES_KEPT);
}
