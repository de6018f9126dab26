import { readFileSync } from 'node:fs';

/**
 * Every icon name of Lucide's maintained set, read once from lucide-static's icon list (`rocket`,
 * `credit-card`, … 1,908 in 1.62.0). Read as data rather than imported, so the typechecker does not
 * infer a type for the whole file.
 */
const ICON_NAMES: ReadonlySet<string> = new Set(
  Object.keys(JSON.parse(readFileSync(require.resolve('lucide-static/icon-nodes.json'), 'utf8')) as Record<string, unknown>),
);

export const isKnownIcon = (name: string): boolean => ICON_NAMES.has(name);
