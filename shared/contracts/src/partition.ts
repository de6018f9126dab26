import { z } from 'zod';

/**
 * A team's data lives in two partitions, chosen by the key that calls (`sk_test_`/`pk_test_` or
 * `sk_live_`/`pk_live_`): a record made with a test key is seen only by test keys, and the reverse.
 * Code, docs and OpenAPI descriptions call the concept the partition. The field that carries it is
 * `mode` on the wire (API keys, sessions, events), at rest (every scoped row) and in the internal
 * token, and `environment` in `GET /auth/whoami`, as the spec names it (docs/adr/0074).
 */
export const PARTITIONS = ['test', 'live'] as const;
export type Partition = (typeof PARTITIONS)[number];
export const partitionSchema = z.enum(PARTITIONS);
