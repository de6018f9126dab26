import { z } from 'zod';
import { conflict } from './errors';

/**
 * Field rules and helpers every resource shares (names, tags, notes, key/value objects, PATCH
 * merging, unique-index conflicts), so the services agree on their limits.
 */
export const NAME_MAX = 255;
export const TAGS_MAX = 50;
export const TAG_MAX = 50;
export const NOTES_MAX = 10_000;
/** Keys of metadata (and other key/value objects such as customFields). */
export const OBJECT_KEYS_MAX = 50;

/** Length in characters (code points), so an emoji counts as one. */
export const charLength = (s: string) => [...s].length;

/** A display name: 1 to `max` characters, not only whitespace, kept as sent. */
export const nameField = (max = NAME_MAX) =>
  z
    .string()
    .refine((s) => s.trim().length > 0, { message: 'must not be empty' })
    .refine((s) => charLength(s) <= max, { message: `must be at most ${max} characters` });

/** Tags: trimmed, duplicates dropped (order kept), at most 50 of 1 to 50 characters. */
export const tagsField = z
  .array(z.string().trim().min(1).max(TAG_MAX))
  .max(TAGS_MAX)
  .transform((tags) => [...new Set(tags)]);

export const notesField = z.string().max(NOTES_MAX).nullable();

const storableKeys = (m: Record<string, unknown>) => Object.keys(m).every((k) => !k.startsWith('$') && !k.includes('.'));

/**
 * A key/value object (metadata, customFields): keys of 1 to 40 characters that MongoDB can store as
 * field names (no leading `$`, no `.`), at most `max` keys sent (null: unbounded, for a PATCH whose
 * merged result is checked instead).
 */
export const keyValueField = (max: number | null = OBJECT_KEYS_MAX) =>
  z
    .record(z.string().min(1).max(40), z.unknown())
    .refine(storableKeys, { message: "keys may not start with '$' or contain '.'" })
    .refine((m) => max === null || Object.keys(m).length <= max, { message: `at most ${max} keys` });

/** Metadata on create: at most 50 storable keys. */
export const metadataSchema = keyValueField();

/** Merges a PATCH into a key/value object: a null value removes the key. */
export function mergeKeyValues(current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete merged[k];
    else merged[k] = v;
  }
  return merged;
}

/** A created object's key/values: null values are simply not stored. */
export const withoutNulls = (m: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(m).filter(([, v]) => v !== null));

/** Whether a PATCH value equals the stored one (JSON-equal). */
export const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The fields of the unique index a MongoDB duplicate-key error (11000) names, or null for any other error. */
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

/**
 * A PATCH's changes against the stored document `cur`: `change(field, value)` puts the field in `set`
 * when the value differs (JSON-equal counts as unchanged) and remembers its previous value (dates as
 * ISO strings) for the `*.updated` event's `changes`/`previous`. Internal fields that are no public
 * change may be written to `set` directly.
 */
export function changeSet<D extends object>(cur: D) {
  const set: Partial<D> = {};
  const previous: Record<string, unknown> = {};
  return {
    set,
    previous,
    change<K extends keyof D & string>(field: K, value: D[K]): boolean {
      const old = cur[field] ?? null;
      if (sameJson(old, value)) return false;
      set[field] = value;
      previous[field] = old instanceof Date ? old.toISOString() : old;
      return true;
    },
    /** The changed fields, in the order they were changed. */
    changes: (): string[] => Object.keys(previous),
  };
}
