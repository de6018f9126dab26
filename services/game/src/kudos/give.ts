import type mongoose from 'mongoose';
import { ApiError, eventScopeOf, parameterInvalid, randomBase62, scoped, withOutbox, type RequestContext } from '@helpdesk/kit';
import type { Clock } from '@helpdesk/kit';
import type { GameMemberDoc } from '../members/model';
import type { GameModels } from '../collections';
import type { PlayerRules } from '../player/rules';
import { dayIdOf, weekIdOf } from '../seasons/calendar';
import type { KudosDoc } from './model';
import { kudosView } from './view';

/** Kudos: a thank-you that pays the receiver a little, limited so that two members cannot farm each other. */
export const KUDOS_PER_DAY = 3;
export const KUDOS_REWARD = { xp: 10, gold: 5 };

export interface GiveKudosDeps {
  conn: mongoose.Connection;
  models: GameModels;
  players: Pick<PlayerRules, 'record' | 'count' | 'award'>;
  clock: Clock;
}

/** `from` thanks `to`: at most KUDOS_PER_DAY a day, one a week to the same teammate; the giver's count and quests move, the receiver is paid. */
export async function giveKudos({ conn, models, players, clock }: GiveKudosDeps, ctx: RequestContext, { from, to, message }: { from: GameMemberDoc; to: GameMemberDoc; message: string | null }) {
  if (from._id === to._id) throw parameterInvalid('toMemberId', 'Kudos go to a teammate, not to yourself.');
  const now = clock.now();
  const k: KudosDoc = { _id: `kudos_${randomBase62(24)}`, teamId: ctx.teamId, mode: ctx.mode, fromMemberId: from._id, toMemberId: to._id, message, dayId: dayIdOf(now), weekId: weekIdOf(now), createdAt: now };
  await withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
    const Kudos = scoped(models, ctx).kudos;
    const today = await Kudos.countDocuments({ fromMemberId: from._id, dayId: k.dayId }).session(session);
    if (today >= KUDOS_PER_DAY) throw new ApiError('game_rule_violation', `${KUDOS_PER_DAY} kudos a day at most: try again tomorrow.`);
    if (await Kudos.exists({ fromMemberId: from._id, toMemberId: to._id, weekId: k.weekId }).session(session)) {
      throw new ApiError('game_rule_violation', 'One kudos a week to the same teammate.', 'toMemberId');
    }
    const { teamId: _t, mode: _m, ...doc } = k;
    await Kudos.create([doc], { session });
    await players.record(ctx, from._id, 'kudos_given', {}, session, emit);
    await players.count(ctx, from._id, { kudosGiven: 1 }, session, emit);
    await players.award(ctx, to._id, { reason: 'kudos', ...KUDOS_REWARD }, session, emit);
    emit({ type: 'game.kudos.given', data: { kudosId: k._id, fromMemberId: from._id, toMemberId: to._id, message } });
  });
  return kudosView(k);
}
