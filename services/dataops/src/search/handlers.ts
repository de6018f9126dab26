import { DATAOPS } from '@helpdesk/contracts';
import { handlersFor } from '@helpdesk/kit';
import type { DataopsRules } from '../rules';

export const searchHandlers = (_rules: DataopsRules) =>
  handlersFor(DATAOPS)({
    search: async ({ query }) => ({ results: [], total: 0, query: query.q }),
  });
