import { Link } from 'wouter';
import type { Ticket } from '../api/client';
import { useCustomer, useCustomerTickets } from '../api/queries';
import { useSession } from '../api/session';
import { relative, STATUS_LABELS } from '../ui/format';

/** The ticket's customer: who they are, and their other tickets (newest first). */
export function CustomerCard({ ticket }: { ticket: Ticket }) {
  const { can } = useSession();
  const customer = useCustomer(can('view_customers') ? ticket.customerId : null);
  const others = useCustomerTickets(ticket.customerId);
  if (!ticket.customerId) {
    return (
      <section className="card">
        <h2>Customer</h2>
        <p className="muted">No customer is linked to this ticket.</p>
      </section>
    );
  }
  const c = customer.data ?? ticket.customer;
  const list = (others.data?.data ?? []).filter((t) => t.id !== ticket.id);
  return (
    <section className="card customer" aria-labelledby="customer-title">
      <h2 id="customer-title">Customer</h2>
      {c ? (
        <>
          <p className="customer-name">{c.name}</p>
          {c.email && <p className="muted">{c.email}</p>}
          <p>
            <span className="badge">{c.status}</span> <span className="badge">{c.sentiment}</span>
            {customer.data && <span className="muted"> · {customer.data.ticketCount} ticket{customer.data.ticketCount === 1 ? '' : 's'}</span>}
          </p>
        </>
      ) : (
        <p className="muted">Loading…</p>
      )}
      <h3>Other tickets</h3>
      {others.data && list.length === 0 && <p className="muted">None.</p>}
      <ul className="compact">
        {list.map((t) => (
          <li key={t.id}>
            <Link href={`/tickets/${t.id}`}>{t.title}</Link> <span className="muted">· {STATUS_LABELS[t.status]} · {relative(t.createdAt)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
