import { useState } from 'react';
import { Link } from 'wouter';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, type Schemas, type WebhookDelivery } from '../api/client';
import { keys } from '../api/queries';
import { useSession } from '../api/session';
import { dateTime } from '../ui/format';
import { toast } from '../ui/toasts';
import { ErrorText, ShownOnce } from '../ui/bits';

/** Webhooks: add one (its signing secret shown once), switch it on and off, delete it, open its delivery log. */
export function WebhooksPage() {
  const { teamId, can } = useSession();
  const manage = can('manage_webhooks');
  const qc = useQueryClient();
  const list = useQuery({ queryKey: keys.webhooks, queryFn: () => api.data(api.GET('/teams/{teamId}/webhooks', { params: { path: { teamId } } })) });
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState('ticket.*');
  const [created, setCreated] = useState<Schemas['CreatedWebhook'] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const refresh = () => qc.invalidateQueries({ queryKey: keys.webhooks });
  const create = useMutation({
    mutationFn: () => api.data(api.POST('/teams/{teamId}/webhooks', { params: { path: { teamId } }, body: { name, url, events } })),
    onSuccess: (w) => {
      setCreated(w);
      setName('');
      setUrl('');
      void refresh();
    },
    onError: (err) => setError(messageOf(err)),
  });
  const update = useMutation({
    mutationFn: (v: { id: string; isActive: boolean }) => api.data(api.PATCH('/teams/{teamId}/webhooks/{webhookId}', { params: { path: { teamId, webhookId: v.id } }, body: { isActive: v.isActive } })),
    onSuccess: () => void refresh(),
    onError: (err) => setError(messageOf(err)),
  });
  const remove = useMutation({
    mutationFn: (id: string) => api.data(api.DELETE('/teams/{teamId}/webhooks/{webhookId}', { params: { path: { teamId, webhookId: id } } })),
    onSuccess: () => {
      toast('Webhook deleted.');
      void refresh();
    },
    onError: (err) => setError(messageOf(err)),
  });
  return (
    <section aria-labelledby="webhooks-title">
      <h1 id="webhooks-title">Webhooks</h1>
      <ErrorText error={error} />
      {created && (
        <ShownOnce id="new-secret" label="Signing secret" value={created.secret} onDone={() => setCreated(null)}>
          <strong>Copy the signing secret now:</strong> it is not shown again. Verify each delivery's <code>x-svc-signature</code> with it.
        </ShownOnce>
      )}
      {manage && (
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault();
            setError(null);
            create.mutate();
          }}
        >
          <h2>Add a webhook</h2>
          <div className="field">
            <label htmlFor="wh-name">Name</label>
            <input id="wh-name" required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />
          </div>
          <div className="field">
            <label htmlFor="wh-url">HTTPS URL</label>
            <input id="wh-url" type="url" required value={url} onChange={(e) => setUrl(e.target.value)} placeholder="https://example.com/hooks/helpdesk" />
          </div>
          <div className="field">
            <label htmlFor="wh-events">Events (comma-separated: ticket.created, ticket.*, *)</label>
            <input id="wh-events" required value={events} onChange={(e) => setEvents(e.target.value)} />
          </div>
          <button type="submit" disabled={create.isPending}>
            Add webhook
          </button>
        </form>
      )}
      <table>
        <caption className="visually-hidden">Webhooks</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">URL</th>
            <th scope="col">Events</th>
            <th scope="col">Active</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {(list.data ?? []).map((w) => (
            <tr key={w.id}>
              <td>
                <Link href={`/webhooks/${w.id}`}>{w.name}</Link>
              </td>
              <td className="mono wrap">{w.url}</td>
              <td>{w.events.join(', ')}</td>
              <td>
                <input
                  type="checkbox"
                  aria-label={`${w.name} active`}
                  checked={w.isActive}
                  disabled={!manage || update.isPending}
                  onChange={(e) => update.mutate({ id: w.id, isActive: e.target.checked })}
                />
              </td>
              <td>
                <Link href={`/webhooks/${w.id}`}>Deliveries of {w.name}</Link>
                {manage && (
                  <button type="button" className="secondary small" onClick={() => window.confirm(`Delete ${w.name}?`) && remove.mutate(w.id)}>
                    Delete {w.name}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {list.data?.length === 0 && <p className="muted">No webhooks yet.</p>}
    </section>
  );
}

/** One webhook's delivery log, newest first, with each attempt, and redeliver. */
export function WebhookDeliveriesPage({ webhookId }: { webhookId: string }) {
  const { teamId, can } = useSession();
  const qc = useQueryClient();
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const webhook = useQuery({
    queryKey: ['webhooks', webhookId],
    queryFn: () => api.data(api.GET('/teams/{teamId}/webhooks/{webhookId}', { params: { path: { teamId, webhookId } } })),
  });
  const deliveries = useQuery({
    queryKey: [...keys.deliveries(webhookId, page), status],
    queryFn: () =>
      api.page(
        api.GET('/teams/{teamId}/webhooks/{webhookId}/deliveries', {
          params: { path: { teamId, webhookId }, query: { page, pageSize: 25, ...(status ? { status: status as WebhookDelivery['status'] } : {}) } },
        }),
      ),
    refetchInterval: 5000,
  });
  const redeliver = useMutation({
    mutationFn: (deliveryId: string) =>
      api.data(api.POST('/teams/{teamId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', { params: { path: { teamId, webhookId, deliveryId } }, body: {} })),
    onSuccess: () => {
      toast('Redelivery queued.');
      void qc.invalidateQueries({ queryKey: ['webhooks', webhookId] });
    },
    onError: (err) => toast(messageOf(err), 'error'),
  });
  const test = useMutation({
    mutationFn: () => api.data(api.POST('/teams/{teamId}/webhooks/trigger-test', { params: { path: { teamId } }, body: { event: 'ticket.created' } })),
    onSuccess: () => {
      toast('Test event sent to every active webhook.');
      void qc.invalidateQueries({ queryKey: ['webhooks', webhookId] });
    },
    onError: (err) => toast(messageOf(err), 'error'),
  });
  const totalPages = deliveries.data?.pagination?.totalPages ?? 1;
  return (
    <section aria-labelledby="deliveries-title">
      <p>
        <Link href="/webhooks">Webhooks</Link>
      </p>
      <h1 id="deliveries-title">Deliveries of {webhook.data?.name ?? webhookId}</h1>
      {webhook.data && <p className="mono wrap">{webhook.data.url}</p>}
      <div className="inline">
        <label htmlFor="dl-status">Status</label>
        <select
          id="dl-status"
          value={status}
          onChange={(e) => {
            setStatus(e.target.value);
            setPage(1);
          }}
        >
          <option value="">All</option>
          <option value="pending">Pending</option>
          <option value="succeeded">Succeeded</option>
          <option value="failed">Failed</option>
          <option value="cancelled">Cancelled</option>
        </select>
        {can('manage_webhooks') && (
          <button type="button" className="secondary" onClick={() => test.mutate()} disabled={test.isPending}>
            Send a test event
          </button>
        )}
      </div>
      {deliveries.isError && <p role="alert">{messageOf(deliveries.error)}</p>}
      {deliveries.data?.data.length === 0 && <p className="muted">No deliveries yet.</p>}
      <ol className="deliveries">
        {(deliveries.data?.data ?? []).map((d) => (
          <li key={d.id} className={`delivery delivery-${d.status}`}>
            <details>
              <summary>
                <span className={`badge delivery-${d.status}`}>{d.status}</span> {d.eventType}
                {d.test ? ' (test)' : ''} · {dateTime(d.createdAt)} · {d.attemptCount} attempt{d.attemptCount === 1 ? '' : 's'}
              </summary>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Attempt</th>
                    <th scope="col">At</th>
                    <th scope="col">HTTP status</th>
                    <th scope="col">Time</th>
                    <th scope="col">Error</th>
                  </tr>
                </thead>
                <tbody>
                  {d.attempts.map((a) => (
                    <tr key={a.attempt}>
                      <td>{a.attempt}</td>
                      <td>{dateTime(a.at)}</td>
                      <td>{a.statusCode ?? '—'}</td>
                      <td>{Math.round(a.durationMs)} ms</td>
                      <td>{a.error ?? ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {d.nextAttemptAt && <p className="muted">Next attempt {dateTime(d.nextAttemptAt)}.</p>}
              <p className="mono small">
                {d.id} · event {d.eventId}
              </p>
            </details>
            {can('manage_webhooks') && (
              <button type="button" className="secondary small" onClick={() => redeliver.mutate(d.id)} disabled={redeliver.isPending}>
                Redeliver
              </button>
            )}
          </li>
        ))}
      </ol>
      <nav className="pager" aria-label="Pages">
        <button type="button" className="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
          Previous page
        </button>
        <span>
          Page {page} of {totalPages}
        </span>
        <button type="button" className="secondary" disabled={page >= totalPages} onClick={() => setPage(page + 1)}>
          Next page
        </button>
      </nav>
    </section>
  );
}
