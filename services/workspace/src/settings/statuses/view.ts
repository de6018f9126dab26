import type { StatusEntry } from '../model';

/** `{key, label, color, position, isProtected}`: every ticket status is built in, so protected. */
export const statusView = (s: StatusEntry) => ({ key: s.key, label: s.label, color: s.color, position: s.position, isProtected: true });

/** By position, then key. */
export const statusesInOrder = (list: StatusEntry[]) =>
  [...list].sort((a, b) => a.position - b.position || a.key.localeCompare(b.key)).map(statusView);
