import { z } from 'zod';

/** What every catalog file writes its payloads with: a leaf module, so no catalog file imports the catalog that spreads it. */
export const iso = z.string().datetime();

/** What changed in an `*.updated` event: the changed field names and their values before the change. */
export const changeFields = {
  changes: z.array(z.string()),
  previous: z.record(z.string(), z.unknown()),
};
