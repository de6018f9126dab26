import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, messageOf } from '../api/client';
import { useMembers } from '../api/queries';
import { useSession, useSignOut } from '../api/session';
import { ErrorText } from '../ui/bits';
import { dateTime, relative } from '../ui/format';
import { toast } from '../ui/toasts';

/**
 * Where a member is signed in (docs/adr/0068): each open session's browser, start and last use, and
 * revoke. Members who manage members see anyone's. Revoking this browser's own session signs out.
 */
export function SessionsPage() {
  const { teamId, memberId, can } = useSession();
  const [whose, setWhose] = useState(memberId);
  const [error, setError] = useState<string | null>(null);
  const qc = useQueryClient();
  const members = useMembers();
  const signOut = useSignOut();
  const key = ['sessions', whose];
  const list = useQuery({
    queryKey: key,
    queryFn: () => api.data(api.GET('/teams/{teamId}/sessions', { params: { path: { teamId }, query: whose === memberId ? {} : { memberId: whose } } })),
  });
  const revoke = useMutation({
    mutationFn: (sessionId: string) => api.data(api.DELETE('/teams/{teamId}/sessions/{sessionId}', { params: { path: { teamId, sessionId } } })),
    onSuccess: () => {
      toast('Session revoked.');
      void qc.invalidateQueries({ queryKey: key });
    },
    onError: (err) => setError(messageOf(err)),
  });
  return (
    <section aria-labelledby="sessions-title">
      <h1 id="sessions-title">Sessions</h1>
      <p className="muted">Where you are signed in. Revoke a session you do not recognise: that browser is signed out at once.</p>
      {can('manage_members') && (
        <div className="inline">
          <label htmlFor="sessions-member">Member</label>
          <select id="sessions-member" value={whose} onChange={(e) => setWhose(e.target.value)}>
            {(members.data ?? []).map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
                {m.id === memberId ? ' (you)' : ''}
              </option>
            ))}
          </select>
        </div>
      )}
      <ErrorText error={error} />
      {list.isError && <ErrorText error={messageOf(list.error)} />}
      <table>
        <caption className="visually-hidden">Open sessions</caption>
        <thead>
          <tr>
            <th scope="col">Browser</th>
            <th scope="col">Signed in</th>
            <th scope="col">Last used</th>
            <th scope="col">Ends at the latest</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {(list.data ?? []).map((s) => (
            <tr key={s.id} data-session-id={s.id}>
              <td>
                {s.userAgent ?? 'unknown browser'}
                {s.current ? ' (this browser)' : ''}
              </td>
              <td>{dateTime(s.createdAt)}</td>
              <td>{relative(s.lastUsedAt)}</td>
              <td>{dateTime(s.expiresAt)}</td>
              <td>
                {s.current ? (
                  <button type="button" className="secondary small" onClick={() => signOut.mutate()}>
                    Sign out here
                  </button>
                ) : (
                  <button type="button" className="secondary small" disabled={revoke.isPending} onClick={() => revoke.mutate(s.id)}>
                    Revoke session {s.id}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
