import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, messageOf } from '../api/client';
import { useArticleSearch } from '../api/queries';
import { useSession } from '../api/session';
import { Dialog } from '../ui/dialog';

/**
 * Finds a published knowledge article and inserts it into the draft: a link to its help-center page
 * when the help center shows it, else its text (an internal article stays readable in the reply).
 */
export function ArticlePicker({ open, onClose, onPick }: { open: boolean; onClose: () => void; onPick: (snippet: string) => void }) {
  const [q, setQ] = useState('');
  const found = useArticleSearch(q);
  const { teamId } = useSession();
  const settings = useQuery({
    queryKey: ['settings'],
    enabled: open,
    queryFn: () => api.data(api.GET('/teams/{teamId}/settings', { params: { path: { teamId } } })),
    staleTime: 5 * 60_000,
  });
  const pick = async (id: string) => {
    const a = await api.data(api.GET('/teams/{teamId}/articles/{articleId}', { params: { path: { teamId, articleId: id } } }));
    const slug = settings.data?.teamSlug;
    if (a.helpCenterVisible && slug) onPick(`${a.title}: ${window.location.origin}/help/${slug}/articles/${a.id}`);
    else onPick(`${a.title}\n\n${a.content}`);
  };
  return (
    <Dialog open={open} title="Insert a knowledge article" onClose={onClose}>
      <form role="search" onSubmit={(e) => e.preventDefault()}>
        <label htmlFor="article-q">Search published articles</label>
        <input id="article-q" type="search" value={q} onChange={(e) => setQ(e.target.value)} autoFocus />
      </form>
      {found.isError && <p role="alert">{messageOf(found.error)}</p>}
      {found.data && found.data.length === 0 && <p className="muted">No published article matches.</p>}
      <ul className="picker" aria-label="Articles">
        {(found.data ?? []).map((a) => (
          <li key={a.id}>
            <button type="button" className="plain wide" onClick={() => void pick(a.id)}>
              <strong>{a.title}</strong>
              <span className="muted">{a.helpCenterVisible ? ' · in the help center' : ' · internal'}</span>
            </button>
          </li>
        ))}
      </ul>
    </Dialog>
  );
}
