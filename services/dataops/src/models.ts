import type mongoose from 'mongoose';

/**
 * Every model of the service on its connection (kit builds their indexes at start-up). Only what is
 * dataops' own lives here (import logs, export cursors): never a copy of tickets, customers or articles.
 */
export const dataopsModels = (_conn: mongoose.Connection) => ({});
export type DataopsModels = ReturnType<typeof dataopsModels>;
