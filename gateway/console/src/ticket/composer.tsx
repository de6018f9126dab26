import { forwardRef, useId, useImperativeHandle, useMemo, useRef, useState } from 'react';
import { messageOf, type Member, type Ticket } from '../api/client';
import { useAddMessage, useMembers, useSuggestReply } from '../api/queries';
import { useSession } from '../api/session';
import { toast } from '../ui/toasts';
import { ArticlePicker } from './article-picker';
import { ErrorText } from '../ui/bits';

export interface ComposerHandle {
  focus(mode: 'reply' | 'note'): void;
}

/** The word being typed after an "@" at the caret, if any. */
function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  const m = /(^|\s)@([\p{L}\p{N}._-]{0,40})$/u.exec(text.slice(0, caret));
  return m ? { start: caret - m[2].length - 1, query: m[2].toLowerCase() } : null;
}

/**
 * A public reply or an internal note (told apart by the toggle, the colour and the button's words):
 * "@" mentions a member (a list to pick from, arrows and Enter), a knowledge article found by search
 * can be inserted, and with AI allowed the suggested reply fills the draft to edit. Ctrl+Enter sends.
 */
export const Composer = forwardRef<ComposerHandle, { ticket: Ticket }>(function Composer({ ticket }, ref) {
  const [mode, setMode] = useState<'reply' | 'note'>('reply');
  const [text, setText] = useState('');
  const [mention, setMention] = useState<{ start: number; query: string } | null>(null);
  const [active, setActive] = useState(0);
  const [picking, setPicking] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  const send = useAddMessage(ticket.id);
  const suggest = useSuggestReply(ticket.id);
  const members = useMembers();
  const { can } = useSession();
  const listId = useId();

  useImperativeHandle(ref, () => ({
    focus(m) {
      setMode(m);
      area.current?.focus();
      area.current?.scrollIntoView({ block: 'nearest' });
    },
  }));

  const matches = useMemo<Member[]>(() => {
    if (!mention) return [];
    return (members.data ?? []).filter((m) => m.name.toLowerCase().includes(mention.query) || m.email.toLowerCase().startsWith(mention.query)).slice(0, 6);
  }, [mention, members.data]);

  const insertAt = (start: number, end: number, insert: string) => {
    const next = text.slice(0, start) + insert + text.slice(end);
    setText(next);
    requestAnimationFrame(() => {
      area.current?.focus();
      area.current?.setSelectionRange(start + insert.length, start + insert.length);
    });
  };
  const pickMention = (m: Member) => {
    if (!mention) return;
    insertAt(mention.start, area.current?.selectionStart ?? text.length, `@${m.name} `);
    setMention(null);
  };

  const submit = async () => {
    if (!text.trim()) return;
    setError(null);
    try {
      await send.mutateAsync({ content: text, internal: mode === 'note' });
      setText('');
      toast(mode === 'note' ? 'Note added.' : 'Reply sent.');
    } catch (err) {
      setError(messageOf(err));
    }
  };

  const askAi = async () => {
    setError(null);
    try {
      const r = await suggest.mutateAsync();
      const suggestion = r.result.suggestion ?? '';
      setText((t) => (t.trim() ? `${t}\n\n${suggestion}` : suggestion));
      area.current?.focus();
    } catch (err) {
      setError(`No suggestion: ${messageOf(err)}`);
    }
  };

  const open = mention !== null && matches.length > 0;
  return (
    <section className={`composer ${mode}`} aria-label="Reply or note">
      <div className="composer-modes" role="radiogroup" aria-label="Kind of message">
        <label>
          <input type="radio" name="compose-mode" checked={mode === 'reply'} onChange={() => setMode('reply')} /> Public reply
        </label>
        <label>
          <input type="radio" name="compose-mode" checked={mode === 'note'} onChange={() => setMode('note')} /> Internal note
        </label>
      </div>
      <label htmlFor="composer-text" className="visually-hidden">
        {mode === 'note' ? 'Internal note (the customer never sees it)' : 'Reply to the customer'}
      </label>
      <div className="composer-box">
        <textarea
          id="composer-text"
          ref={area}
          value={text}
          rows={5}
          placeholder={mode === 'note' ? 'Internal note: only the team sees it. Type @ to mention someone.' : 'Reply to the customer. Type @ to mention a member.'}
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={listId}
          aria-activedescendant={open ? `${listId}-${active}` : undefined}
          onChange={(e) => {
            setText(e.target.value);
            setMention(mentionAt(e.target.value, e.target.selectionStart));
            setActive(0);
          }}
          onKeyDown={(e) => {
            if (open) {
              if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
                e.preventDefault();
                setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : matches.length - 1)) % matches.length);
                return;
              }
              if (e.key === 'Enter' || e.key === 'Tab') {
                e.preventDefault();
                pickMention(matches[active]);
                return;
              }
              if (e.key === 'Escape') {
                e.preventDefault();
                setMention(null);
                return;
              }
            }
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              void submit();
            } else if (e.key === 'Escape') area.current?.blur();
          }}
        />
        <ul id={listId} role="listbox" className="mentions" hidden={!open} aria-label="Members">
          {matches.map((m, i) => (
            <li
              key={m.id}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === active}
              onMouseDown={(e) => {
                e.preventDefault();
                pickMention(m);
              }}
            >
              {m.name} <span className="muted">{m.email}</span>
            </li>
          ))}
        </ul>
      </div>
      <ErrorText error={error} />
      <div className="composer-actions">
        <button type="button" className="secondary" onClick={() => setPicking(true)}>
          Insert article…
        </button>
        {can('use_ai') && (
          <button type="button" className="secondary" onClick={() => void askAi()} disabled={suggest.isPending}>
            {suggest.isPending ? 'Suggesting…' : 'Suggest a reply'}
          </button>
        )}
        <button type="button" onClick={() => void submit()} disabled={send.isPending || !text.trim()}>
          {send.isPending ? 'Sending…' : mode === 'note' ? 'Add note' : 'Send reply'}
        </button>
      </div>
      <ArticlePicker
        open={picking}
        onClose={() => setPicking(false)}
        onPick={(snippet) => {
          setPicking(false);
          const at = area.current?.selectionStart ?? text.length;
          insertAt(at, at, snippet);
        }}
      />
    </section>
  );
});
