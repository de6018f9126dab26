import { describeProblem, FREE_FORM, freeFormProblem } from '@helpdesk/contracts';
import { conflict, parameterInvalid } from './errors';

/**
 * Helpers for writing records (PATCH merging, changes, unique-index conflicts, retries). The field
 * rules themselves (names, tags, notes, free-form objects and their bounds) are pure zod in
 * contracts (`fields.ts`), where the API manifest's schemas are built from them.
 */

/** Merges a PATCH into a key/value object: a null value removes the key. */
export function mergeKeyValues(current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete merged[k];
    else merged[k] = v;
  }
  return merged;
}

/**
 * A PATCH of a free-form object (`metadata`, `customFields`): merged into the stored one (null removes a
 * key), and the result must still be within FREE_FORM's bounds (at most 50 keys, 16 KiB …), else
 * 400 `parameter_invalid` naming `param` and nothing changes.
 */
export function mergeFreeForm(current: Record<string, unknown>, patch: Record<string, unknown>, param: string): Record<string, unknown> {
  const merged = mergeKeyValues(current, patch);
  if (Object.keys(merged).length > FREE_FORM.keysMax) throw parameterInvalid(param, `Invalid ${param}: at most ${FREE_FORM.keysMax} keys after merging.`);
  const problem = freeFormProblem(merged);
  if (problem) throw parameterInvalid(param, `Invalid ${param} after merging: ${describeProblem(problem)}.`);
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
  function change<K extends keyof D & string>(field: K, value: D[K]): boolean {
    const old = cur[field] ?? null;
    if (sameJson(old, value)) return false;
    set[field] = value;
    previous[field] = old instanceof Date ? old.toISOString() : old;
    return true;
  }
  return {
    set,
    previous,
    change,
    /**
     * `change(field, input[field])` for each of `fields` the input defines: a PATCH's plain fields,
     * stored under the names the input gives them (an absent or `undefined` field is left alone;
     * `null` is a value). Fields that are renamed, merged or checked against the stored value go
     * through `change` themselves.
     */
    applyDefined<F extends keyof D & string>(input: { readonly [K in F]?: D[K] | undefined }, fields: readonly F[]): void {
      for (const field of fields) {
        const value = input[field];
        if (value !== undefined) change(field, value as D[F]);
      }
    },
    /** The changed fields, in the order they were changed. */
    changes: (): string[] => Object.keys(previous),
  };
}

/**
 * Runs `attempt` again (up to `times` in all) while it fails with an error `retryable` accepts: a
 * write that lost a race (a stale `rev`, a concurrent duplicate) is re-run from a fresh read.
 */
export async function retrying<R>(attempt: () => Promise<R>, retryable: (err: unknown) => boolean, times = 10): Promise<R> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (n >= times || !retryable(err)) throw err;
    }
  }
}
