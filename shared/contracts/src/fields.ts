import { z } from 'zod';

/**
 * The field rules every resource shares (names, tags, notes, free-form objects, query strings,
 * pagination). Pure zod: the API manifest's request schemas are built from them, kit re-exports them
 * for the services, and the OpenAPI document shows their bounds. docs/adr/0008 lists the bounds.
 */
export const NAME_MAX = 255;
export const TAGS_MAX = 50;
export const TAG_MAX = 50;
export const NOTES_MAX = 10_000;
export const SEARCH_MAX = 200;

/**
 * Bounds of every free-form object the API accepts (`metadata`, `customFields`, and later filters,
 * custom-field values and automation conditions). MongoDB refuses documents nested over 100 levels
 * and mongoose clones values recursively, so a request is bounded long before either.
 */
export const FREE_FORM = {
  /** Keys at the top level of the object. */
  keysMax: 50,
  /** Every key, at any level: 1 to 40 characters, not starting with `$`, without `.`. */
  keyLengthMax: 40,
  /** Levels of nesting, the object itself counting as 1 (`{"a": {"b": [1]}}` is 3 deep). */
  depthMax: 5,
  /** Characters in any one string value. */
  stringMax: 5_000,
  /** Items of any one array. */
  arrayMax: 100,
  /** The whole object as JSON, in UTF-8 bytes. */
  bytesMax: 16_384,
} as const;

/** Length in characters (code points), so an emoji counts as one. */
export const charLength = (s: string) => [...s].length;

/** A display name: 1 to `max` characters, not only whitespace, kept as sent. */
export const nameField = (max = NAME_MAX) =>
  z
    .string()
    .refine((s) => s.trim().length > 0, { message: 'must not be empty' })
    .refine((s) => charLength(s) <= max, { message: `must be at most ${max} characters` })
    .meta({ maxLength: max });

/** Tags: trimmed, duplicates dropped (order kept), at most 50 of 1 to 50 characters. */
export const tagsField = z
  .array(z.string().trim().min(1).max(TAG_MAX))
  .max(TAGS_MAX)
  .transform((tags) => [...new Set(tags)]);

export const notesField = z.string().max(NOTES_MAX).nullable();

const utf8 = new TextEncoder();

/** Why a key cannot be stored, or null. */
function keyProblem(key: string): string | null {
  if (key.length < 1 || key.length > FREE_FORM.keyLengthMax) return `keys must be 1 to ${FREE_FORM.keyLengthMax} characters`;
  if (key.startsWith('$') || key.includes('.')) return "keys may not start with '$' or contain '.'";
  return null;
}

/**
 * Walks a parsed JSON value breadth-first (no recursion: the input may be nested thousands of levels)
 * and reports the first value outside FREE_FORM's bounds, with its path below the field.
 */
export function freeFormProblem(value: Record<string, unknown>): { path: (string | number)[]; message: string } | null {
  const queue: { v: unknown; path: (string | number)[]; depth: number }[] = [{ v: value, path: [], depth: 1 }];
  for (let i = 0; i < queue.length; i++) {
    const { v, path, depth } = queue[i];
    if (typeof v === 'string') {
      if (v.length > FREE_FORM.stringMax) return { path, message: `strings may be at most ${FREE_FORM.stringMax} characters` };
      continue;
    }
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'number' && !Number.isFinite(v)) return { path, message: 'numbers must be finite' };
      continue;
    }
    if (depth > FREE_FORM.depthMax) return { path, message: `values may nest at most ${FREE_FORM.depthMax} levels deep` };
    if (Array.isArray(v)) {
      if (v.length > FREE_FORM.arrayMax) return { path, message: `arrays may hold at most ${FREE_FORM.arrayMax} items` };
      v.forEach((item, n) => queue.push({ v: item, path: [...path, n], depth: depth + 1 }));
      continue;
    }
    for (const [k, item] of Object.entries(v)) {
      const problem = keyProblem(k);
      if (problem) return { path: [...path, k], message: problem };
      queue.push({ v: item, path: [...path, k], depth: depth + 1 });
    }
  }
  if (utf8.encode(JSON.stringify(value)).length > FREE_FORM.bytesMax) return { path: [], message: `must be at most ${FREE_FORM.bytesMax} bytes as JSON` };
  return null;
}

/** `at a.b[2]: strings may be …` (or the message alone for the whole object). */
export function describeProblem(problem: { path: (string | number)[]; message: string }): string {
  if (!problem.path.length) return problem.message;
  const where = problem.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i ? `.${p}` : p)).join('');
  return `at ${where}: ${problem.message}`;
}

/**
 * A free-form key/value object (metadata, customFields) within FREE_FORM's bounds; at most `keysMax`
 * top-level keys sent (null: unbounded, for a PATCH whose merged result is checked instead).
 */
export const freeFormObject = (keysMax: number | null = FREE_FORM.keysMax) =>
  z
    .record(z.string().min(1).max(FREE_FORM.keyLengthMax), z.unknown())
    .superRefine((m, ctx) => {
      if (keysMax !== null && Object.keys(m).length > keysMax) {
        ctx.addIssue({ code: 'custom', message: `at most ${keysMax} keys` });
        return;
      }
      // The field itself is the param (clients fix the field); the message says where inside it.
      const problem = freeFormProblem(m);
      if (problem) ctx.addIssue({ code: 'custom', message: describeProblem(problem) });
    })
    .meta({
      description:
        `Free-form JSON object: at most ${keysMax ?? FREE_FORM.keysMax} top-level keys; keys 1 to ${FREE_FORM.keyLengthMax} characters, ` +
        `not starting with '$' and without '.'; values nested at most ${FREE_FORM.depthMax} levels deep (the object counting as 1), ` +
        `strings at most ${FREE_FORM.stringMax} characters, arrays at most ${FREE_FORM.arrayMax} items, ${FREE_FORM.bytesMax} bytes in all as JSON.`,
    });

/** Metadata on create: at most 50 keys within the free-form bounds. */
export const metadataSchema = freeFormObject();

/** A query-string integer (`"2"` → 2); anything else is a type error reported by zod. */
export const queryInt = () =>
  z.preprocess((v) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v), z.number().int());

/** A query-string boolean: `true`/`false` only. */
export const queryBool = () => z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean());

/** `page` (1-based, default 1) and `pageSize` (default 20, at most 100) as query-schema fields. */
export function paginationFields(defaultPageSize = 20, maxPageSize = 100) {
  return {
    page: queryInt().pipe(z.number().int().min(1).max(1_000_000)).optional().default(1),
    pageSize: queryInt().pipe(z.number().int().min(1).max(maxPageSize)).optional().default(defaultPageSize),
  };
}

/** The pagination object every paginated list carries (in `meta.pagination`, or top-level for some lists). */
export const paginationSchema = z
  .object({
    page: z.number().int(),
    pageSize: z.number().int(),
    total: z.number().int(),
    totalPages: z.number().int(),
    hasMore: z.boolean(),
  })
  .meta({ id: 'Pagination' });
export type Pagination = z.infer<typeof paginationSchema>;
