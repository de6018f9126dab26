import { useEffect, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, type WidgetSettings } from '../api/client';
import { keys } from '../api/queries';
import { useSession } from '../api/session';
import { toast } from '../ui/toasts';
import { ErrorText } from '../ui/bits';

type Position = WidgetSettings['position'];
const POSITIONS: Position[] = ['bottom-right', 'bottom-left', 'top-right', 'top-left'];
const HEX = /^#[0-9a-fA-F]{6}$/;

/** The text colour the widget puts on its colour: black or white, whichever contrasts more (as gateway/widget does). */
function inkOn(hex: string): string {
  const n = parseInt(hex.slice(1), 16);
  const ch = (c: number) => (c / 255 <= 0.03928 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
  const l = 0.2126 * ch((n >> 16) & 255) + 0.7152 * ch((n >> 8) & 255) + 0.0722 * ch(n & 255);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? '#000000' : '#ffffff';
}

/** The chat widget's settings, with a live preview of the widget as a visitor sees it, and the tag to embed it. */
export function WidgetPage() {
  const { teamId, session } = useSession();
  const qc = useQueryClient();
  const settings = useQuery({ queryKey: keys.widget, queryFn: () => api.data(api.GET('/teams/{teamId}/settings/widget', { params: { path: { teamId } } })) });
  const [draft, setDraft] = useState<{ position: Position; primaryColor: string; greeting: string; origins: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (settings.data && !draft) {
      const s = settings.data;
      setDraft({ position: s.position, primaryColor: s.primaryColor, greeting: s.greeting, origins: s.allowedOrigins.join('\n') });
    }
  }, [settings.data]);
  const save = useMutation({
    mutationFn: () =>
      api.data(
        api.PATCH('/teams/{teamId}/settings/widget', {
          params: { path: { teamId } },
          body: {
            position: draft!.position,
            primaryColor: draft!.primaryColor,
            greeting: draft!.greeting,
            allowedOrigins: draft!.origins.split(/\s+/).filter(Boolean),
          },
        }),
      ),
    onSuccess: (s) => {
      qc.setQueryData(keys.widget, s);
      toast('Widget settings saved.');
    },
    onError: (err) => setError(messageOf(err)),
  });
  if (!draft) return settings.isError ? <p role="alert">{messageOf(settings.error)}</p> : <p role="status">Loading…</p>;
  const color = HEX.test(draft.primaryColor) ? draft.primaryColor : '#4f46e5';
  const ink = inkOn(color);
  const [vertical, horizontal] = draft.position.split('-');
  const tag = `<script src="${window.location.origin}/widget/v1.js" data-team-id="${teamId}" data-key="pk_${session.mode}_…" async></script>`;
  return (
    <section aria-labelledby="widget-title">
      <h1 id="widget-title">Chat widget</h1>
      <div className="widget-admin">
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault();
            setError(null);
            save.mutate();
          }}
        >
          <div className="field">
            <label htmlFor="w-position">Position</label>
            <select id="w-position" value={draft.position} onChange={(e) => setDraft({ ...draft, position: e.target.value as Position })}>
              {POSITIONS.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="w-color">Colour</label>
            <div className="inline">
              <input id="w-color" type="color" value={color} onChange={(e) => setDraft({ ...draft, primaryColor: e.target.value })} />
              <input aria-label="Colour as #rrggbb" className="mono" value={draft.primaryColor} pattern="#[0-9a-fA-F]{6}" onChange={(e) => setDraft({ ...draft, primaryColor: e.target.value })} />
            </div>
          </div>
          <div className="field">
            <label htmlFor="w-greeting">Greeting</label>
            <textarea id="w-greeting" rows={2} maxLength={280} required value={draft.greeting} onChange={(e) => setDraft({ ...draft, greeting: e.target.value })} />
          </div>
          <div className="field">
            <label htmlFor="w-origins">Allowed origins (one per line; none: any site)</label>
            <textarea id="w-origins" rows={3} className="mono" value={draft.origins} onChange={(e) => setDraft({ ...draft, origins: e.target.value })} placeholder="https://shop.example.com" />
          </div>
          <ErrorText error={error} />
          <button type="submit" disabled={save.isPending}>
            Save widget settings
          </button>
          <div className="field">
            <label htmlFor="w-tag">Embed on your site (with a publishable key of the team)</label>
            <textarea id="w-tag" readOnly rows={3} className="mono" value={tag} onFocus={(e) => e.target.select()} />
          </div>
        </form>
        <figure className="widget-preview" aria-label="Preview of the widget">
          <div className={`preview-page v-${vertical} h-${horizontal}`} data-testid="widget-preview">
            <div className="preview-panel">
              <div className="preview-head" style={{ background: color, color: ink }}>
                Chat with us
              </div>
              <p className="preview-greeting">{draft.greeting}</p>
              <div className="preview-input">Your message…</div>
              <span className="preview-send" style={{ background: color, color: ink }}>
                Send
              </span>
            </div>
            <span className="preview-launcher" style={{ background: color, color: ink }} aria-hidden="true">
              Chat
            </span>
          </div>
          <figcaption className="muted">Live preview: what a visitor sees, as you type.</figcaption>
        </figure>
      </div>
    </section>
  );
}
