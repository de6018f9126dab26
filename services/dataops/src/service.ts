import { DATAOPS } from '@helpdesk/contracts';
import { defineService } from '@helpdesk/kit';
import { bulkHandlers } from './bulk/handlers';
import { transferClients } from './bulk/clients';
import { consumers } from './consumers';
import { exportHandlers } from './export/handlers';
import { importHandlers } from './import/handlers';
import { dataopsModels } from './collections';
import { dataopsRules, type DataopsConfig } from './rules';
import { searchHandlers } from './search/handlers';
import { tagHandlers } from './tags/handlers';
import { viewHandlers } from './views/handlers';

/**
 * The dataops service (docs/adr/0034): the thin cross-service part of search, tags, saved-view
 * execution, bulk, export and import. It keeps no copy of another service's records: it fans out to
 * the owning services' internal operations, merges and answers.
 */
export const dataopsService = (config: DataopsConfig) =>
  defineService({
    name: 'dataops',
    operations: DATAOPS,
    models: dataopsModels,
    rules: (deps) => dataopsRules(deps, config),
    handlers: (rules, { models }) => {
      const transfer = transferClients(config);
      return {
        ...searchHandlers(rules),
        ...tagHandlers(rules),
        ...viewHandlers(rules),
        ...bulkHandlers(transfer),
        ...exportHandlers(transfer, models),
        ...importHandlers(transfer, models),
      };
    },
    consumers,
  });
