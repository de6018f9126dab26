/** Which top-level fields of a sub-document changed, and their previous values (for `*.updated` events). */
export function fieldChanges<T extends object>(before: T, after: T): { changes: string[]; previous: Record<string, unknown> } {
  const previous: Record<string, unknown> = {};
  for (const k of Object.keys(after) as (keyof T & string)[]) {
    if (JSON.stringify(before[k]) !== JSON.stringify(after[k])) previous[k] = before[k];
  }
  return { changes: Object.keys(previous), previous };
}
