import type mongoose from 'mongoose';
import { tombstoneModel } from './export/tombstones';
import { importLogModel } from './import/model';

/**
 * Every model of the service on its connection (kit builds their indexes at start-up). Only what is
 * dataops' own lives here (import logs, export cursors): never a copy of tickets, customers or articles.
 */
export const dataopsModels = (conn: mongoose.Connection) => ({
  // Bulk, export and import (docs/adr/0036, 0037): import logs, and the deletions the incremental export reports.
  importLogs: importLogModel(conn),
  tombstones: tombstoneModel(conn),
});
export type DataopsModels = ReturnType<typeof dataopsModels>;
