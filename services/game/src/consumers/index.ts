import type { ServiceDeps, Subscription } from '@helpdesk/kit';
import type { GameModels } from '../collections';
import type { GameRules } from '../rules';
import { memberSubscriptions } from './members';
import { ticketSubscriptions } from './tickets';

/**
 * Everything the game service reacts to, in one list (queue `helpdesk.game`): the workspace's members
 * and switches, and the ticketing service's tickets (each partition feeds its own game).
 */
export const consumers = ({ members, tickets, batches }: GameRules, { conn }: ServiceDeps<GameModels>): Subscription[] => [
  ...memberSubscriptions(conn, members),
  ...ticketSubscriptions(conn, tickets, batches),
];
