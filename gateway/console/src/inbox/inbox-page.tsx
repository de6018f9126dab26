import { useEffect, useMemo, useRef, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { messageOf, type Member, type Ticket } from '../api/client';
import { onStreamEvent } from '../api/events';
import { useMembers, useTicketPage, useViews, type InboxFilter } from '../api/queries';
import { PRIORITY_LABELS, relative, STATUS_LABELS } from '../ui/format';
import { useHotkeys } from '../ui/hotkeys';

/**
 * The inbox: the team's tickets by folder (mine, unassigned, all, a status) or saved view, newest
 * first, a page of 50 at a time (the next page is fetched ahead, the current one stays on screen while
 * another loads, so paging through thousands never blanks the list). New tickets and changes arrive
 * from the event stream. Keyboard: j/k move, Enter opens, r/n/a open the ticket to reply, note, assign.
 */

const STATUSES = ['new', 'open', 'pending', 'resolved', 'closed'] as const;

/** The folder in the URL (`?folder=mine`, `status:open`, `view:view_…`), so that a reload or a link keeps it. */
export function parseFolder(value: string | null): InboxFilter {
  if (value === 'mine' || value === 'unassigned' || value === 'all') return { kind: value };
  if (value?.startsWith('status:')) {
    const status = value.slice(7) as (typeof STATUSES)[number];
    if ((STATUSES as readonly string[]).includes(status)) return { kind: 'status', status };
  }
  if (value?.startsWith('view:') && value.length > 5) return { kind: 'view', viewId: value.slice(5) };
  return { kind: 'all' };
}

export function folderParam(f: InboxFilter): string {
  return f.kind === 'status' ? `status:${f.status}` : f.kind === 'view' ? `view:${f.viewId}` : f.kind;
}

function folderHref(f: InboxFilter, page = 1) {
  const q = new URLSearchParams({ folder: folderParam(f) });
  if (page > 1) q.set('page', String(page));
  return `/?${q}`;
}

export function InboxPage() {
  const search = new URLSearchParams(useSearch());
  const filter = useMemo(() => parseFolder(search.get('folder')), [search.get('folder')]);
  const page = Math.max(1, Number(search.get('page')) || 1);
  const [, navigate] = useLocation();
  const tickets = useTicketPage(filter, page);
  const members = useMembers();
  const views = useViews();
  const [selected, setSelected] = useState(0);
  const rows = tickets.data?.tickets ?? [];
  const totalPages = tickets.data?.totalPages ?? 1;
  const listRef = useRef<HTMLOListElement>(null);
  const fresh = useFreshIds();

  useEffect(() => setSelected(0), [folderParam(filter), page]);
  const clamped = Math.min(selected, Math.max(0, rows.length - 1));

  const focusRow = (i: number) => {
    setSelected(i);
    listRef.current?.querySelectorAll<HTMLAnchorElement>('a.ticket-link')[i]?.focus();
  };
  const open = (suffix = '') => rows[clamped] && navigate(`/tickets/${rows[clamped].id}${suffix}`);
  const goPage = (p: number) => p >= 1 && p <= totalPages && navigate(folderHref(filter, p));
  useHotkeys({
    j: () => (clamped < rows.length - 1 ? focusRow(clamped + 1) : page < totalPages && goPage(page + 1)),
    k: () => (clamped > 0 ? focusRow(clamped - 1) : page > 1 && goPage(page - 1)),
    Enter: () => open(),
    o: () => open(),
    r: () => open('?compose=reply'),
    n: () => open('?compose=note'),
    a: () => open('?assign=1'),
    ']': () => goPage(page + 1),
    '[': () => goPage(page - 1),
  });

  const names = useMemo(() => new Map((members.data ?? []).map((m: Member) => [m.id, m.name])), [members.data]);
  const title = folderTitle(filter, views.data ?? []);

  return (
    <div className="inbox">
      <nav className="folders" aria-label="Folders">
        <h2 className="visually-hidden">Folders</h2>
        <ul>
          <FolderLink f={{ kind: 'mine' }} current={filter} label="Mine" />
          <FolderLink f={{ kind: 'unassigned' }} current={filter} label="Unassigned" />
          <FolderLink f={{ kind: 'all' }} current={filter} label="All tickets" />
        </ul>
        <h3>Status</h3>
        <ul>
          {STATUSES.map((s) => (
            <FolderLink key={s} f={{ kind: 'status', status: s }} current={filter} label={STATUS_LABELS[s]} />
          ))}
        </ul>
        {(views.data?.length ?? 0) > 0 && (
          <>
            <h3>Saved views</h3>
            <ul>
              {views.data!.map((v) => (
                <FolderLink key={v.id} f={{ kind: 'view', viewId: v.id }} current={filter} label={v.name} />
              ))}
            </ul>
          </>
        )}
      </nav>
      <section className="ticket-list" aria-labelledby="inbox-title">
        <header className="list-head">
          <h1 id="inbox-title">{title}</h1>
          <span className="muted" aria-live="polite">
            {tickets.data ? `${tickets.data.total.toLocaleString()} ticket${tickets.data.total === 1 ? '' : 's'}` : ''}
            {tickets.isFetching && !tickets.isPending ? ' · updating' : ''}
          </span>
        </header>
        {tickets.isPending && <p role="status">Loading tickets…</p>}
        {tickets.isError && <p role="alert">The tickets could not be loaded: {messageOf(tickets.error)}</p>}
        {tickets.data && rows.length === 0 && page <= totalPages && <p className="empty">No tickets here.</p>}
        {tickets.data && !tickets.isPlaceholderData && page > totalPages && (
          <p className="empty">
            There is no page {page} here. <Link href={folderHref(filter, totalPages)}>Go to the last page ({totalPages})</Link>
          </p>
        )}
        <ol ref={listRef} className={tickets.isPlaceholderData ? 'rows stale' : 'rows'} aria-label={`${title}, page ${page} of ${totalPages}`}>
          {rows.map((t, i) => (
            <TicketRow key={t.id} t={t} selected={i === clamped} fresh={fresh.has(t.id)} assignee={t.assignedTo ? names.get(t.assignedTo) ?? 'someone' : null} onFocus={() => setSelected(i)} />
          ))}
        </ol>
        <nav className="pager" aria-label="Pages">
          <button type="button" className="secondary" onClick={() => goPage(page - 1)} disabled={page <= 1}>
            Previous page
          </button>
          <span aria-current="page">
            Page {page} of {totalPages.toLocaleString()}
          </span>
          <button type="button" className="secondary" onClick={() => goPage(page + 1)} disabled={page >= totalPages}>
            Next page
          </button>
        </nav>
        <p className="hint muted">
          Press <kbd>?</kbd> for keyboard shortcuts.
        </p>
      </section>
    </div>
  );
}

function folderTitle(f: InboxFilter, views: { id: string; name: string }[]): string {
  switch (f.kind) {
    case 'mine':
      return 'Mine';
    case 'unassigned':
      return 'Unassigned';
    case 'all':
      return 'All tickets';
    case 'status':
      return STATUS_LABELS[f.status];
    case 'view':
      return views.find((v) => v.id === f.viewId)?.name ?? 'Saved view';
  }
}

function FolderLink({ f, current, label }: { f: InboxFilter; current: InboxFilter; label: string }) {
  const active = folderParam(f) === folderParam(current);
  return (
    <li>
      <Link href={folderHref(f)} aria-current={active ? 'page' : undefined}>
        {label}
      </Link>
    </li>
  );
}

function TicketRow({ t, selected, fresh, assignee, onFocus }: { t: Ticket; selected: boolean; fresh: boolean; assignee: string | null; onFocus: () => void }) {
  const customer = t.customer?.name ?? null;
  return (
    <li className={`row${selected ? ' selected' : ''}${fresh ? ' fresh' : ''}`} data-ticket-id={t.id}>
      <Link href={`/tickets/${t.id}`} className="ticket-link" onFocus={onFocus} aria-current={selected ? 'true' : undefined}>
        <span className="row-title">{t.title}</span>
        <span className="row-meta">
          <span className={`badge status-${t.status}`}>{STATUS_LABELS[t.status] ?? t.status}</span>
          <span className={`badge priority-${t.priority}`}>{PRIORITY_LABELS[t.priority] ?? t.priority}</span>
          {customer && <span>{customer}</span>}
          <span>{assignee ? `Assigned to ${assignee}` : 'Unassigned'}</span>
          <time dateTime={t.createdAt}>{relative(t.createdAt)}</time>
        </span>
      </Link>
    </li>
  );
}

/** Tickets that arrived from the stream in the last seconds, marked in the list. */
function useFreshIds(): Set<string> {
  const [fresh, setFresh] = useState<Set<string>>(() => new Set());
  useEffect(
    () =>
      onStreamEvent((e) => {
        if (e.type !== 'ticket.created' || !e.data?.ticket?.id) return;
        const id = e.data.ticket.id as string;
        setFresh((s) => new Set(s).add(id));
        setTimeout(() => setFresh((s) => {
          const n = new Set(s);
          n.delete(id);
          return n;
        }), 8000);
      }),
    [],
  );
  return fresh;
}
