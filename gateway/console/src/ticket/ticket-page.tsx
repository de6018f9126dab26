import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { messageOf, type Message } from '../api/client';
import { useMembers, useTicket } from '../api/queries';
import { useSession } from '../api/session';
import { dateTime, relative } from '../ui/format';
import { useHotkeys } from '../ui/hotkeys';
import { Composer, type ComposerHandle } from './composer';
import { CustomerCard } from './customer-card';
import { MergeDialog } from './merge-dialog';
import { TicketProperties } from './properties';
import { SlaClock } from './sla-clock';

/**
 * One ticket: its thread (public replies and internal notes told apart by a label and a colour), the
 * composer, its properties edited in place (status, priority, assignee, tags, custom fields), the SLA
 * clock, the customer's card with their other tickets, and merge. `?compose=reply|note` and `?assign=1`
 * (the inbox's r, n and a) focus the composer or the assignee on arrival.
 */
export function TicketPage({ ticketId }: { ticketId: string }) {
  const ticket = useTicket(ticketId);
  const search = new URLSearchParams(useSearch());
  const composer = useRef<ComposerHandle>(null);
  const assignee = useRef<HTMLSelectElement>(null);
  const [merging, setMerging] = useState(false);
  const [, navigate] = useLocation();
  const { can } = useSession();
  const writable = can('manage_tickets');

  const arrival = search.get('compose') ?? (search.get('assign') ? 'assign' : null);
  useEffect(() => {
    if (!ticket.data || !arrival) return;
    if (arrival === 'reply' || arrival === 'note') composer.current?.focus(arrival);
    if (arrival === 'assign') assignee.current?.focus();
    navigate(`/tickets/${ticketId}`, { replace: true });
  }, [!!ticket.data, arrival]);

  useHotkeys({
    r: () => composer.current?.focus('reply'),
    n: () => composer.current?.focus('note'),
    a: () => assignee.current?.focus(),
    u: () => navigate('/'),
  });

  if (ticket.isPending) return <p role="status">Loading the ticket…</p>;
  if (ticket.isError) {
    return (
      <div>
        <h1>Ticket not available</h1>
        <p role="alert">{messageOf(ticket.error)}</p>
        <Link href="/">Back to the inbox</Link>
      </div>
    );
  }
  const t = ticket.data;
  return (
    <div className="ticket-page">
      <article className="ticket-main" aria-labelledby="ticket-title">
        <header className="ticket-head">
          <p className="crumbs">
            <Link href="/">Inbox</Link> / <span className="mono">{t.id}</span>
          </p>
          <h1 id="ticket-title">{t.title}</h1>
          {t.mergedInto && (
            <p className="notice">
              Merged into <Link href={`/tickets/${t.mergedInto}`}>{t.mergedInto}</Link>.
            </p>
          )}
        </header>
        <Thread messages={t.messages ?? []} />
        {writable && t.status !== 'merged' && <Composer ref={composer} ticket={t} />}
      </article>
      <aside className="ticket-side" aria-label="Ticket details">
        <TicketProperties ticket={t} assigneeRef={assignee} writable={writable && t.status !== 'merged'} />
        <SlaClock sla={t.sla} />
        <CustomerCard ticket={t} />
        {writable && t.status !== 'merged' && (
          <section className="card">
            <h2>Merge</h2>
            <p className="muted">Move other tickets of this customer into this one.</p>
            <button type="button" className="secondary" onClick={() => setMerging(true)}>
              Merge tickets into this one…
            </button>
          </section>
        )}
      </aside>
      <MergeDialog ticket={t} open={merging} onClose={() => setMerging(false)} />
    </div>
  );
}

function Thread({ messages }: { messages: Message[] }) {
  const { data: members } = useMembers();
  const nameOf = (m: Message) => m.senderName ?? members?.find((x) => x.id === m.authorId)?.name ?? (m.sender === 'customer' ? 'Customer' : m.sender === 'system' ? 'System' : 'Agent');
  if (messages.length === 0) return <p className="empty">No messages yet.</p>;
  return (
    <ol className="thread" aria-label="Conversation">
      {messages.map((m) => (
        <li key={m.id} className={`message ${m.isInternal ? 'note' : `from-${m.sender}`}`} data-message-id={m.id}>
          <header>
            <strong>{nameOf(m)}</strong>
            <span className="kind">{m.isInternal ? 'Internal note' : m.sender === 'customer' ? 'Customer' : m.sender === 'system' ? 'System' : 'Public reply'}</span>
            <time dateTime={m.createdAt} title={dateTime(m.createdAt)}>
              {relative(m.createdAt)}
            </time>
          </header>
          <div className="content">{m.content}</div>
        </li>
      ))}
    </ol>
  );
}

