import { DATAOPS } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { TransferClients } from '../bulk/clients';
import type { DataopsModels } from '../collections';
import { exportData } from './export';
import { exportIncremental } from './incremental';

/** `POST /export` and `GET /export/incremental` (docs/adr/0036). */
export const exportHandlers = (clients: TransferClients, models: Pick<DataopsModels, 'tombstones'>) =>
  handlersFor(DATAOPS)({
    exportData: ({ ctx, body, token, res }) => exportData({ clients }, ctx, { body, token, res }),
    exportIncremental: ({ ctx, query, token }) => exportIncremental({ clients, models }, ctx, { query, token }),
  });
