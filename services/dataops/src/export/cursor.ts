import { z } from 'zod';
import { BULK_RESOURCES, exportFiltersSchema, exportPositionSchema } from '@helpdesk/contracts';
import { parameterInvalid } from '@helpdesk/kit';

/**
 * Export cursors (docs/adr/0036): opaque to clients, base64url JSON to us. They carry positions, not
 * data, and are read only inside the caller's team and partition, so a forged one reveals nothing.
 */

/** A full export's continuation: the resource, its filters, where the export started and how many rows it passed. */
const continuationSchema = z.strictObject({
  v: z.literal(1),
  k: z.literal('export'),
  r: z.enum(BULK_RESOURCES),
  f: exportFiltersSchema,
  a: exportPositionSchema.nullable(),
  s: z.number().int().min(0),
});
export type Continuation = z.output<typeof continuationSchema>;

/** An incremental export's position: the last change (updatedAt, id) and the last tombstone (recordedAt, id) handed out. */
const incrementalSchema = z.strictObject({
  v: z.literal(1),
  k: z.literal('incremental'),
  r: z.enum(BULK_RESOURCES),
  u: exportPositionSchema.nullable(),
  d: exportPositionSchema.nullable(),
});
export type IncrementalCursor = z.output<typeof incrementalSchema>;

const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

function decode<S extends z.ZodType>(schema: S, cursor: string): z.output<S> {
  try {
    return schema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw parameterInvalid('cursor', 'Invalid cursor: send back a cursor exactly as an earlier answer gave it.');
  }
}

export const encodeContinuation = (c: Omit<Continuation, 'v' | 'k'>) => encode({ v: 1, k: 'export', ...c });
export const decodeContinuation = (cursor: string) => decode(continuationSchema, cursor);
export const encodeIncremental = (c: Omit<IncrementalCursor, 'v' | 'k'>) => encode({ v: 1, k: 'incremental', ...c });
export const decodeIncremental = (cursor: string) => decode(incrementalSchema, cursor);
