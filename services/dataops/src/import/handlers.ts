import { DATAOPS } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { TransferClients } from '../bulk/clients';
import type { DataopsModels } from '../collections';
import { importRecords } from './import';
import { listImports } from './list';

/** `POST /import` and `GET /import` (docs/adr/0037). */
export const importHandlers = (clients: TransferClients, models: Pick<DataopsModels, 'importLogs'>) =>
  handlersFor(DATAOPS)({
    importRecords: ({ ctx, body, token }) => importRecords({ clients, models }, ctx, { body, token }),
    listImports: ({ ctx, query }) => listImports({ models }, ctx, query),
  });
