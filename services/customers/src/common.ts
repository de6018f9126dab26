/** Limits of the customers service's own (the shared field rules are kit's `fields`). */

/** Longest `search` query on the lists. */
export const SEARCH_MAX = 200;

export const iso = (d: Date) => new Date(d).toISOString();
