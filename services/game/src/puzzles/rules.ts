import { createHash } from 'node:crypto';
import type mongoose from 'mongoose';
import { ApiError, eventScopeOf, scoped, withOutbox, type RequestContext, type Scope } from '@helpdesk/kit';
import type { Clock } from '../clock';
import type { GameModels } from '../models';
import type { PlayerRules } from '../player/rules';
import { dayIdOf } from '../seasons/calendar';

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

export function puzzleRules({ conn, models, players, clock }: { conn: mongoose.Connection; models: GameModels; players: PlayerRules; clock: Clock }) {
  const today = () => puzzleOf(dayIdOf(clock()));
  const view = (p: ReturnType<typeof puzzleOf>, mine: { correct: boolean } | null | undefined) => ({
    id: p.id,
    date: p.date,
    prompt: 'Order these tickets as you would handle them: most urgent first. Answer with their keys.',
    tickets: p.items.map((i) => ({ key: i.key, summary: i.summary })),
    rewards: { ...PUZZLE_REWARDS },
    answered: mine === undefined ? null : !!mine,
    correct: mine === undefined ? null : (mine?.correct ?? null),
  });
  return {
    async daily(scope: Scope, memberId: string | undefined) {
      const p = today();
      if (!memberId) return view(p, undefined);
      return view(p, await scoped(models, scope).puzzleAnswers.findOne({ memberId, puzzleId: p.id }).lean());
    },
    async answer(ctx: RequestContext, memberId: string, answer: string[]) {
      const p = today();
      const correct = answer.map((a) => a.toUpperCase()).join(',') === p.answer.join(',');
      try {
        await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
          const answers = scoped(models, ctx).puzzleAnswers;
          if (await answers.exists({ memberId, puzzleId: p.id }).session(session)) throw new ApiError('already_done', 'You answered today\'s puzzle already.');
          await answers.create([{ memberId, puzzleId: p.id, answer, correct, answeredAt: clock() }], { session });
          if (correct) await players.award(ctx, memberId, { reason: 'puzzle', ...PUZZLE_REWARDS, stats: { puzzlesSolved: 1 } }, session, emit);
          emit({ type: 'game.puzzle.answered', data: { memberId, puzzleId: p.id, correct } });
        });
      } catch (err) {
        if ((err as { code?: number }).code === 11000) throw new ApiError('already_done', 'You answered today\'s puzzle already.');
        throw err;
      }
      return view(p, { correct });
    },
  };
}
export type PuzzleRules = ReturnType<typeof puzzleRules>;
