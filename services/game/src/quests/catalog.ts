import type { LedgerKind } from '../player/model';

/** Daily quests count a UTC day, weekly ones an ISO week: rows of one ledger kind the member has in the period. */
export interface QuestDef {
  key: string;
  name: string;
  cadence: 'daily' | 'weekly';
  counts: LedgerKind;
  target: number;
  rewards: { xp: number; gold: number };
}

export const QUESTS: readonly QuestDef[] = [
  { key: 'daily_close_3', name: 'Close 3 customer tickets today', cadence: 'daily', counts: 'ticket_closed', target: 3, rewards: { xp: 30, gold: 10 } },
  { key: 'daily_boss_hit', name: 'Hit the boss today', cadence: 'daily', counts: 'boss_hit', target: 1, rewards: { xp: 20, gold: 5 } },
  { key: 'daily_kudos', name: 'Give a teammate kudos today', cadence: 'daily', counts: 'kudos_given', target: 1, rewards: { xp: 10, gold: 5 } },
  { key: 'weekly_close_20', name: 'Close 20 customer tickets this week', cadence: 'weekly', counts: 'ticket_closed', target: 20, rewards: { xp: 200, gold: 50 } },
  { key: 'weekly_boss', name: 'Help defeat a boss this week', cadence: 'weekly', counts: 'boss_reward', target: 1, rewards: { xp: 150, gold: 40 } },
  { key: 'weekly_puzzles_3', name: 'Solve 3 daily puzzles this week', cadence: 'weekly', counts: 'puzzle', target: 3, rewards: { xp: 100, gold: 30 } },
];
