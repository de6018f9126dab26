import { teamAndPartition } from '@helpdesk/kit';
import type mongoose from 'mongoose';
import { tombstoneModel } from './export/model';
import { importLogModel } from './import/model';

/**
 * Every collection of the service, declared once with its kind (kit's data layer, docs/adr/0065);
 * kit builds their indexes at start-up. Only what is dataops' own lives here (import logs, export
 * cursors): never a copy of tickets, customers or articles.
 */
export const dataopsModels = (conn: mongoose.Connection) => ({
  // Bulk, export and import (docs/adr/0036, 0037): import logs, and the deletions the incremental export reports.
  importLogs: teamAndPartition(importLogModel(conn)),
  tombstones: teamAndPartition(tombstoneModel(conn)),
});
export type DataopsModels = ReturnType<typeof dataopsModels>;
