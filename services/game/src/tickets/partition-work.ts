import type mongoose from 'mongoose';
import type { Emit, Scope, ScopedHandles, TypedEvent } from '@helpdesk/kit';
import type { GameModels } from '../collections';
import type { LedgerDoc, PlayerDoc } from '../player/model';
import { dayIdOf, seasonOf, weekIdOf } from '../seasons/calendar';
import type { GameTicketDoc } from './model';

export type TicketEvent = TypedEvent<'ticket.created' | 'ticket.updated' | 'ticket.closed'>;

/** One team's partition's handles, session and clock, shared by the steps of a batch. */
export interface PartitionWork {
  scope: Scope;
  db: ScopedHandles<GameModels>;
  session: mongoose.ClientSession;
  now: Date;
}

/** A close that pays the member who closed it. */
export interface Close {
  event: TicketEvent;
  ticket: GameTicketDoc;
  memberId: string;
}

/** The periods a payment counts in: the season, the ISO week and the UTC day of `now`. */
export function periodsOf(now: Date) {
  return { season: seasonOf(now), weekId: weekIdOf(now), dayId: dayIdOf(now) };
}
export type Periods = ReturnType<typeof periodsOf>;

/** One payee's state in this batch: the player in memory, and what the batch adds to it. */
export interface Payee {
  p: PlayerDoc;
  isNew: boolean;
  rolledFrom: { seasonId: string; past: PlayerDoc['pastSeasons'][number] } | null;
  inc: Record<string, number>;
  unlocked: PlayerDoc['achievements'];
  xp: number;
  tickets: number;
  /** `tickets` of the week's and the day's standings as this batch found them (the day from the ledger when its row is missing). */
  weekBefore: number;
  dayBefore: number;
  dayRowMissing: boolean;
}

export type LedgerRow = Omit<LedgerDoc, '_id' | 'teamId' | 'mode'>;

export type EmitFor = (cause: TicketEvent) => Emit;
