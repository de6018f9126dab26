import { levelOf } from '../player/progression';
import type { PlayerDoc } from '../player/model';

/** The achievements, each with the rule that unlocks it (checked after every change of a player) and its gold. */
export interface AchievementDef {
  key: string;
  name: string;
  description: string;
  gold: number;
  unlocked(p: PlayerDoc): boolean;
}

export const ACHIEVEMENTS: readonly AchievementDef[] = [
  { key: 'first_ticket', name: 'First Blood', description: 'Close your first customer ticket.', gold: 10, unlocked: (p) => p.stats.ticketsClosed >= 1 },
  { key: 'ticket_10', name: 'Regular', description: 'Close 10 customer tickets.', gold: 25, unlocked: (p) => p.stats.ticketsClosed >= 10 },
  { key: 'ticket_100', name: 'Centurion', description: 'Close 100 customer tickets.', gold: 100, unlocked: (p) => p.stats.ticketsClosed >= 100 },
  { key: 'gold_sla', name: 'Golden Touch', description: 'Close a ticket inside the gold SLA tier.', gold: 25, unlocked: (p) => p.stats.goldSlaTickets >= 1 },
  { key: 'streak_7', name: 'On a Roll', description: 'Close customer tickets 7 days in a row.', gold: 75, unlocked: (p) => p.streak.max >= 7 },
  { key: 'level_10', name: 'Seasoned', description: 'Reach level 10 in a season.', gold: 50, unlocked: (p) => levelOf(p.seasonXp) >= 10 },
  { key: 'boss_slayer', name: 'Boss Slayer', description: 'Take part in defeating a boss.', gold: 50, unlocked: (p) => p.stats.bossesDefeated >= 1 },
  { key: 'final_blow', name: 'Finisher', description: 'Land the killing blow on a boss.', gold: 50, unlocked: (p) => p.stats.finalBlows >= 1 },
  { key: 'team_player', name: 'Team Player', description: 'Give 5 kudos.', gold: 25, unlocked: (p) => p.stats.kudosGiven >= 5 },
  { key: 'puzzler', name: 'Puzzler', description: 'Solve 5 daily puzzles.', gold: 50, unlocked: (p) => p.stats.puzzlesSolved >= 5 },
];
