/**
 * How a mention is written in an internal note (docs/adr/0020): `@` followed by the member's email
 * (`@ada@example.com`) or their name without spaces (`@AdaLovelace`), case-insensitively, not inside
 * a word (`x@y` is not a mention). Trailing punctuation is not part of it (`@Ada.` names `ada`).
 */
const MENTION_RE = /(?<![\w.@])@([A-Za-z0-9._%+-]+(?:@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)?)/g;

/** The distinct handles a text mentions, lowercase. */
export function mentionedHandles(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(MENTION_RE)) found.add(m[1].replace(/[._%+-]+$/, '').toLowerCase());
  found.delete('');
  return [...found];
}
