import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, messageOf, type Member } from '../api/client';
import { keys, useMembers } from '../api/queries';
import { useSession } from '../api/session';
import { dateTime } from '../ui/format';
import { toast } from '../ui/toasts';
import { ErrorText } from '../ui/bits';

const ROLES = ['admin', 'manager', 'librarian', 'agent', 'spectator'] as const;

/** Members (role changes, removal) and invites (send, revoke), for members who manage members. */
export function MembersPage() {
  const { teamId, memberId, can } = useSession();
  const manage = can('manage_members');
  const members = useMembers();
  const qc = useQueryClient();
  const invites = useQuery({
    queryKey: keys.invites,
    enabled: manage,
    queryFn: () => api.data(api.GET('/teams/{teamId}/invites', { params: { path: { teamId } } })),
  });
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<(typeof ROLES)[number]>('agent');
  const [error, setError] = useState<string | null>(null);
  const run = async (what: string, fn: () => Promise<unknown>) => {
    setError(null);
    try {
      await fn();
      toast(what);
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const invite = useMutation({
    mutationFn: () => api.data(api.POST('/teams/{teamId}/invites', { params: { path: { teamId } }, body: { email, role } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.invites }),
  });
  const setMemberRole = (m: Member, r: string) =>
    run(`${m.name} is now ${r}.`, async () => {
      await api.data(api.PATCH('/teams/{teamId}/members/{memberId}', { params: { path: { teamId, memberId: m.id } }, body: { role: r as Member['role'] } }));
      await qc.invalidateQueries({ queryKey: keys.members });
    });
  const remove = (m: Member) =>
    window.confirm(`Remove ${m.name} from the team? Their sessions and keys stop working.`) &&
    run(`${m.name} removed.`, async () => {
      await api.data(api.DELETE('/teams/{teamId}/members/{memberId}', { params: { path: { teamId, memberId: m.id } } }));
      await qc.invalidateQueries({ queryKey: keys.members });
    });
  const revoke = (inviteId: string, to: string) =>
    run(`Invite to ${to} revoked.`, async () => {
      await api.data(api.DELETE('/teams/{teamId}/invites/{inviteId}', { params: { path: { teamId, inviteId } } }));
      await qc.invalidateQueries({ queryKey: keys.invites });
    });

  return (
    <section aria-labelledby="members-title">
      <h1 id="members-title">Members and invites</h1>
      <ErrorText error={error} />
      <table>
        <caption className="visually-hidden">Members</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Email</th>
            <th scope="col">Role</th>
            <th scope="col">Joined</th>
            {manage && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {(members.data ?? []).map((m) => (
            <tr key={m.id}>
              <td>
                {m.name}
                {m.id === memberId ? ' (you)' : ''}
              </td>
              <td>{m.email}</td>
              <td>
                {manage && m.role !== 'owner' && m.id !== memberId ? (
                  <select aria-label={`Role of ${m.name}`} value={m.role} onChange={(e) => void setMemberRole(m, e.target.value)}>
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </select>
                ) : (
                  m.role
                )}
              </td>
              <td>{dateTime(m.joinedAt)}</td>
              {manage && (
                <td>
                  {m.role !== 'owner' && m.id !== memberId && (
                    <button type="button" className="secondary small" onClick={() => void remove(m)}>
                      Remove {m.name}
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      {manage && (
        <>
          <h2>Invite someone</h2>
          <form
            className="inline"
            onSubmit={(e) => {
              e.preventDefault();
              void run(`Invitation sent to ${email}.`, async () => {
                await invite.mutateAsync();
                setEmail('');
              });
            }}
          >
            <label htmlFor="invite-email">Email</label>
            <input id="invite-email" type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
            <label htmlFor="invite-role">Role</label>
            <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as (typeof ROLES)[number])}>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
            <button type="submit" disabled={invite.isPending}>
              Send invite
            </button>
          </form>
          <h2>Pending invites</h2>
          {invites.data?.length === 0 && <p className="muted">None.</p>}
          <ul className="compact">
            {(invites.data ?? []).map((i) => (
              <li key={i.id}>
                {i.email} <span className="muted">· {i.role} · mail {i.message.status} · expires {dateTime(i.expiresAt)}</span>{' '}
                <button type="button" className="secondary small" onClick={() => void revoke(i.id, i.email)}>
                  Revoke invite to {i.email}
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
