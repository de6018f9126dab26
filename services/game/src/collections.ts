import { teamAndPartition, teamWide } from '@helpdesk/kit';
import type mongoose from 'mongoose';
import { bossHitModel, bossModel } from './boss/model';
import { kudosModel } from './kudos/model';
import { gameMemberModel, teamSwitchesModel } from './members/model';
import { ledgerModel, payoutModel, playerModel, standingModel } from './player/model';
import { puzzleAnswerModel } from './puzzles/model';
import { questClaimModel } from './quests/model';
import { gameTicketModel } from './tickets/model';

/**
 * Every collection of the service, declared once with its kind (kit's data layer, docs/adr/0065);
 * kit builds their indexes at start-up. Reached only through `scoped(models, scope)`. Members and
 * feature switches are the team's (team-wide); each partition plays its own game (docs/adr/0033).
 */
export const gameModels = (conn: mongoose.Connection) => ({
  members: teamWide(gameMemberModel(conn)),
  switches: teamWide(teamSwitchesModel(conn)),
  tickets: teamAndPartition(gameTicketModel(conn)),
  players: teamAndPartition(playerModel(conn)),
  ledger: teamAndPartition(ledgerModel(conn)),
  standings: teamAndPartition(standingModel(conn)),
  payouts: teamAndPartition(payoutModel(conn)),
  bosses: teamAndPartition(bossModel(conn)),
  hits: teamAndPartition(bossHitModel(conn)),
  questClaims: teamAndPartition(questClaimModel(conn)),
  puzzleAnswers: teamAndPartition(puzzleAnswerModel(conn)),
  kudos: teamAndPartition(kudosModel(conn)),
});
export type GameModels = ReturnType<typeof gameModels>;
