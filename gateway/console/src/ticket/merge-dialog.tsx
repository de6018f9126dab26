import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useLocation } from 'wouter';
import { api, messageOf, type Ticket } from '../api/client';
import { useCustomerTickets, useMergeTickets } from '../api/queries';
import { useSession } from '../api/session';
import { Dialog } from '../ui/dialog';
import { STATUS_LABELS } from '../ui/format';
import { toast } from '../ui/toasts';
import { ErrorText } from '../ui/bits';

/** Merges chosen tickets (the customer's others, or any found by title) into this one (docs/adr/0027). */
export function MergeDialog({ ticket, open, onClose }: { ticket: Ticket; open: boolean; onClose: () => void }) {
  const { teamId } = useSession();
  const [q, setQ] = useState('');
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [error, setError] = useState<string | null>(null);
  const merge = useMergeTickets(ticket.id);
  const [, navigate] = useLocation();
  const theirs = useCustomerTickets(ticket.customerId);
  const found = useQuery({
    queryKey: ['tickets', 'merge-search', q],
    enabled: open && q.trim().length > 1,
    queryFn: () => api.data(api.GET('/teams/{teamId}/tickets', { params: { path: { teamId }, query: { search: q.trim(), pageSize: 10 } } })),
  });
  const candidates = new Map<string, Ticket>();
  for (const t of [...(theirs.data?.data ?? []), ...(found.data ?? [])]) if (t.id !== ticket.id && t.status !== 'merged') candidates.set(t.id, t);
  const toggle = (id: string) =>
    setChosen((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });
  const submit = async () => {
    setError(null);
    try {
      await merge.mutateAsync([...chosen]);
      toast(`${chosen.size} ticket${chosen.size === 1 ? '' : 's'} merged into this one.`);
      setChosen(new Set());
      onClose();
      navigate(`/tickets/${ticket.id}`);
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <Dialog open={open} title="Merge tickets into this one" onClose={onClose} wide>
      <p className="muted">The chosen tickets become “merged”; their messages are copied into this ticket's thread.</p>
      <label htmlFor="merge-q">Find tickets by title</label>
      <input id="merge-q" type="search" value={q} onChange={(e) => setQ(e.target.value)} />
      <fieldset>
        <legend>Tickets to merge</legend>
        {candidates.size === 0 && <p className="muted">No other ticket of this customer; search by title.</p>}
        {[...candidates.values()].map((t) => (
          <div className="field check" key={t.id}>
            <input type="checkbox" id={`merge-${t.id}`} checked={chosen.has(t.id)} onChange={() => toggle(t.id)} />
            <label htmlFor={`merge-${t.id}`}>
              {t.title} <span className="muted">· {STATUS_LABELS[t.status]} · {t.id}</span>
            </label>
          </div>
        ))}
      </fieldset>
      <ErrorText error={error} />
      <div className="actions">
        <button type="button" className="secondary" onClick={onClose}>
          Cancel
        </button>
        <button type="button" disabled={chosen.size === 0 || merge.isPending} onClick={() => void submit()}>
          Merge {chosen.size || ''} ticket{chosen.size === 1 ? '' : 's'}
        </button>
      </div>
    </Dialog>
  );
}
