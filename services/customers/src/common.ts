import { z } from 'zod';
import { actorOf, conflict, scopeOf, type EventScope, type RequestContext } from '@helpdesk/kit';

/** Limits shared by the resources (the same as ticketing's, docs/adr/0006). */
export const NAME_MAX = 255;
export const TAGS_MAX = 50;
export const TAG_MAX = 50;
export const NOTES_MAX = 10_000;
export const OBJECT_KEYS_MAX = 50;
export const SEARCH_MAX = 200;

/** Length in characters (code points), so an emoji counts as one. */
export const charLength = (s: string) => [...s].length;

/** A display name: 1 to 255 characters, not only whitespace, kept as sent. */
export const nameField = z
  .string()
  .refine((s) => s.trim().length > 0, { message: 'must not be empty' })
  .refine((s) => charLength(s) <= NAME_MAX, { message: `must be at most ${NAME_MAX} characters` });

/** Tags: trimmed, duplicates dropped (order kept), at most 50 of 1 to 50 characters. */
export const tagsField = z
  .array(z.string().trim().min(1).max(TAG_MAX))
  .max(TAGS_MAX)
  .transform((tags) => [...new Set(tags)]);

export const notesField = z.string().max(NOTES_MAX).nullable();

const safeKeys = (m: Record<string, unknown>) => Object.keys(m).every((k) => !k.startsWith('$') && !k.includes('.'));

/**
 * A key/value object (metadata, customFields): keys of 1 to 40 characters that MongoDB can store
 * as field names (no leading `$`, no `.`). `max` bounds the keys sent; the merged result is
 * checked by `withinKeys` after a PATCH.
 */
export const keyValueField = (max: number | null) =>
  z
    .record(z.string().min(1).max(40), z.unknown())
    .refine(safeKeys, { message: "keys may not start with '$' or contain '.'" })
    .refine((m) => max === null || Object.keys(m).length <= max, { message: `at most ${max} keys` });

/** Merges a PATCH into an object: a null value removes the key. */
export function mergeKeyValues(current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete merged[k];
    else merged[k] = v;
  }
  return merged;
}

export const withoutNulls = (m: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(m).filter(([, v]) => v !== null));

export const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const iso = (d: Date) => new Date(d).toISOString();

/** Who an event is attributed to, in which team and partition, for which request. */
export function eventScope(ctx: RequestContext): EventScope {
  return { ...scopeOf(ctx), requestId: ctx.requestId, actor: actorOf(ctx) };
}

/** The unique index a MongoDB duplicate-key error (11000) names, or null for any other error. */
export function duplicateKeyOf(err: unknown): string[] | null {
  const e = err as { code?: number; keyPattern?: Record<string, unknown> } | null;
  if (e?.code !== 11000) return null;
  return Object.keys(e.keyPattern ?? {});
}

/** Runs `fn`; a duplicate on one of the `fields` of a unique index becomes `409 resource_conflict` naming `param`. */
export async function conflictOnDuplicate<R>(fn: () => Promise<R>, fields: Record<string, { param: string; message: string }>): Promise<R> {
  try {
    return await fn();
  } catch (err) {
    const keys = duplicateKeyOf(err);
    const hit = keys && Object.keys(fields).find((f) => keys.includes(f));
    if (hit) throw conflict(fields[hit].message, fields[hit].param);
    throw err;
  }
}
