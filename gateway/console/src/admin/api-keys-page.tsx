import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, type Schemas } from '../api/client';
import { keys, useMembers } from '../api/queries';
import { useSession } from '../api/session';
import { dateTime, relative } from '../ui/format';
import { toast } from '../ui/toasts';
import { ErrorText, ShownOnce } from '../ui/bits';

/** API keys of this partition (the member's own, or everyone's for those who manage members): create (shown once) and revoke. */
export function ApiKeysPage() {
  const { teamId, session } = useSession();
  const qc = useQueryClient();
  const members = useMembers();
  const list = useQuery({ queryKey: keys.apiKeys, queryFn: () => api.data(api.GET('/teams/{teamId}/api-keys', { params: { path: { teamId } } })) });
  const [name, setName] = useState('');
  const [type, setType] = useState<'secret' | 'publishable'>('secret');
  const [days, setDays] = useState('');
  const [created, setCreated] = useState<Schemas['CreatedApiKey'] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const create = useMutation({
    mutationFn: () =>
      api.data(api.POST('/teams/{teamId}/api-keys', { params: { path: { teamId } }, body: { name, type, ...(days ? { expiresInDays: Number(days) } : {}) } })),
    onSuccess: (k) => {
      setCreated(k);
      setName('');
      void qc.invalidateQueries({ queryKey: keys.apiKeys });
    },
    onError: (err) => setError(messageOf(err)),
  });
  const revoke = useMutation({
    mutationFn: (keyId: string) => api.data(api.DELETE('/teams/{teamId}/api-keys/{keyId}', { params: { path: { teamId, keyId } } })),
    onSuccess: () => {
      toast('Key revoked.');
      void qc.invalidateQueries({ queryKey: keys.apiKeys });
    },
    onError: (err) => setError(messageOf(err)),
  });
  const owner = (id: string | null) => (id ? members.data?.find((m) => m.id === id)?.name ?? id : 'no member');
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <p className="muted">
        Keys of the {session.mode} partition. A secret key is for servers only; a publishable key may be in a web page (the chat widget).
      </p>
      <ErrorText error={error} />
      {created && (
        <ShownOnce id="new-key" label="New key" value={created.key} onDone={() => setCreated(null)}>
          <strong>Copy the new key now:</strong> it is not shown again.
        </ShownOnce>
      )}
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          setError(null);
          create.mutate();
        }}
      >
        <label htmlFor="key-name">Name</label>
        <input id="key-name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        <label htmlFor="key-type">Type</label>
        <select id="key-type" value={type} onChange={(e) => setType(e.target.value as 'secret' | 'publishable')}>
          <option value="secret">Secret</option>
          <option value="publishable">Publishable</option>
        </select>
        <label htmlFor="key-days">Expires after (days, optional)</label>
        <input id="key-days" type="number" min={1} max={730} value={days} onChange={(e) => setDays(e.target.value)} />
        <button type="submit" disabled={create.isPending}>
          Create key
        </button>
      </form>
      <table>
        <caption className="visually-hidden">API keys</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">Type</th>
            <th scope="col">Member</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Expires</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {(list.data ?? []).map((k) => (
            <tr key={k.id}>
              <td>{k.name ?? '—'}</td>
              <td className="mono">{k.prefix}…</td>
              <td>{k.type}</td>
              <td>{owner(k.memberId)}</td>
              <td>{dateTime(k.createdAt)}</td>
              <td>{k.lastUsedAt ? relative(k.lastUsedAt) : 'never'}</td>
              <td>{k.expiresAt ? dateTime(k.expiresAt) : 'never'}</td>
              <td>
                <button
                  type="button"
                  className="secondary small"
                  onClick={() => window.confirm(`Revoke ${k.name ?? k.prefix}? Anything using it stops working.`) && revoke.mutate(k.id)}
                >
                  Revoke {k.name ?? k.prefix}
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
