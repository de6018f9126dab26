import { useEffect, useRef } from 'react';

/**
 * Single-key shortcuts (j, k, Enter, r, n, a, ?), ignored while the focus is in a field, a button that
 * Enter would press, or a dialog, and with a modifier held (the browser's own shortcuts stay).
 */
export function useHotkeys(map: Record<string, (e: KeyboardEvent) => void>, enabled = true): void {
  const ref = useRef(map);
  ref.current = map;
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
      if (t?.closest('dialog[open]')) return;
      if (e.key === 'Enter' && t && /^(BUTTON|A|SUMMARY)$/.test(t.tagName)) return;
      const handler = ref.current[e.key];
      if (handler) {
        e.preventDefault();
        handler(e);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [enabled]);
}

/** The list shown by "?" (and on the keyboard page of the README). */
export const SHORTCUTS: [keys: string, what: string][] = [
  ['j / k', 'Next / previous ticket in the inbox'],
  ['Enter', 'Open the selected ticket'],
  ['r', 'Reply to the open (or selected) ticket'],
  ['n', 'Write an internal note'],
  ['a', 'Assign the ticket'],
  ['[ / ]', 'Previous / next page of the inbox'],
  ['Esc', 'Close a dialog, leave a field'],
  ['?', 'This list'],
];
