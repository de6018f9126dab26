/** Which top-level fields of a sub-document changed, and their previous values (for `*.updated` events). */
export function fieldChanges<T extends object>(before: T, after: T): { changes: string[]; previous: Record<string, unknown> } {
  const previous: Record<string, unknown> = {};
  for (const k of Object.keys(after) as (keyof T & string)[]) {
    if (JSON.stringify(before[k]) !== JSON.stringify(after[k])) previous[k] = before[k];
  }
  return { changes: Object.keys(previous), previous };
}

/** The fields a PATCH body gave (zod leaves absent optional fields as `undefined`). */
export const givenFields = <T extends object>(input: T): Partial<T> =>
  Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<T>;
