import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, HelpdeskError, onUnauthorized, setCsrfToken, type Schemas } from './client';

/**
 * The signed-in member's session (docs/adr/0068): who they are, their team, partition and permissions,
 * and the CSRF token every write carries. `GET /auth/session` answers it (401: nobody is signed in);
 * any 401 later means the session ended (signed out elsewhere, revoked, expired, the member removed),
 * and the console says so instead of failing call by call.
 */
export type Session = Schemas['CurrentSession'];
/** The partition the session works in (`test` or `live`; the wire field is `mode`, docs/adr/0074). */
export type Partition = Session['mode'];

interface SessionState {
  session: Session;
  teamId: string;
  memberId: string;
  can: (permission: string) => boolean;
}

const SessionContext = createContext<SessionState | null>(null);

export const SESSION_KEY = ['session'] as const;

/** The session, or null when nobody is signed in (401); other failures throw to the error boundary. */
export function useSessionQuery() {
  return useQuery({
    queryKey: SESSION_KEY,
    queryFn: async () => {
      try {
        const session = await api.data(api.GET('/auth/session'));
        setCsrfToken(session.csrfToken);
        return session;
      } catch (err) {
        if (err instanceof HelpdeskError && err.status === 401) {
          setCsrfToken(null);
          return null;
        }
        throw err;
      }
    },
    staleTime: Infinity,
    retry: false,
  });
}

/** Why the session ended while the console was open (null while it lasts). */
export function useSessionEnded(): HelpdeskError | null {
  const [ended, setEnded] = useState<HelpdeskError | null>(null);
  useEffect(() => onUnauthorized((err) => setEnded((e) => e ?? err)), []);
  return ended;
}

export function SessionProvider({ session, children }: { session: Session; children: ReactNode }) {
  const value = useMemo<SessionState>(() => {
    const perms = new Set<string>(session.permissions);
    return { session, teamId: session.teamId, memberId: session.memberId, can: (p) => perms.has(p) };
  }, [session]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a signed-in console');
  return s;
}

/** Signs out: the session ends on the server, the cookie is cleared, every cached answer dropped. */
export function useSignOut() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => api.data(api.DELETE('/auth/session')),
    onSettled: () => {
      setCsrfToken(null);
      qc.clear();
      window.location.assign('/app/sign-in');
    },
  });
}

/** Switches the partition the session works in (test or live data); every cached answer is of the other one. */
export function useSwitchPartition() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (mode: Partition) => api.data(api.PATCH('/auth/session', { body: { mode } })),
    onSuccess: (session) => {
      setCsrfToken(session.csrfToken);
      qc.removeQueries({ predicate: (q) => q.queryKey[0] !== SESSION_KEY[0] });
      qc.setQueryData(SESSION_KEY, session);
    },
  });
}
