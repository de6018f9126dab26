import type mongoose from 'mongoose';
import { bossHitModel, bossModel } from './boss/model';
import { kudosModel } from './kudos/model';
import { gameMemberModel, teamSwitchesModel } from './members/model';
import { ledgerModel, payoutModel, playerModel, standingModel } from './player/model';
import { puzzleAnswerModel } from './puzzles/model';
import { questClaimModel } from './quests/model';
import { gameTicketModel } from './tickets/model';

/** Every model of the service on its connection (kit builds their indexes at start-up). */
export const gameModels = (conn: mongoose.Connection) => ({
  members: gameMemberModel(conn),
  switches: teamSwitchesModel(conn),
  tickets: gameTicketModel(conn),
  players: playerModel(conn),
  ledger: ledgerModel(conn),
  standings: standingModel(conn),
  payouts: payoutModel(conn),
  bosses: bossModel(conn),
  hits: bossHitModel(conn),
  questClaims: questClaimModel(conn),
  puzzleAnswers: puzzleAnswerModel(conn),
  kudos: kudosModel(conn),
});
export type GameModels = ReturnType<typeof gameModels>;
