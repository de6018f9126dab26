import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useSearch } from 'wouter';
import { api, HelpdeskError, messageOf, setCsrfToken } from '../api/client';
import { SESSION_KEY, type Session } from '../api/session';

/**
 * Sign-in for people (docs/adr/0068): an email address gets a link by mail; the link opens this page
 * with `?token=`, and the Sign in button (a POST, so that mail scanners that open links do not use it
 * up) starts the session. An expired, used or unknown link gets a page that says so, and a way on.
 */
export function SignInPage({ signedIn }: { signedIn: Session | null }) {
  const token = new URLSearchParams(useSearch()).get('token');
  return (
    <main className="center-page" id="main">
      {token ? <UseLink token={token} /> : <AskForLink signedIn={signedIn} />}
    </main>
  );
}

function AskForLink({ signedIn }: { signedIn: Session | null }) {
  const [email, setEmail] = useState('');
  const ask = useMutation({
    mutationFn: () => api.data(api.POST('/auth/sign-in-links', { body: { email } })),
  });
  if (ask.isSuccess) {
    return (
      <>
        <h1>Check your mail</h1>
        <p role="status">
          If <strong>{ask.data.email}</strong> belongs to a member of a team here, a sign-in link is on its way. It works once, within{' '}
          {Math.round(ask.data.expiresInSeconds / 60)} minutes.
        </p>
        <button type="button" className="secondary" onClick={() => ask.reset()}>
          Use another address
        </button>
      </>
    );
  }
  const err = ask.error;
  return (
    <>
      <h1>Sign in to the Helpdesk console</h1>
      {signedIn && (
        <p className="notice">
          You are signed in as {signedIn.member.name} ({signedIn.team.name}). <Link href="/">Go to the inbox</Link>
        </p>
      )}
      <form
        className="stack narrow"
        onSubmit={(e) => {
          e.preventDefault();
          ask.mutate();
        }}
      >
        <div className="field">
          <label htmlFor="email">Work email</label>
          <input id="email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} autoFocus />
        </div>
        {err && (
          <p role="alert" className="error">
            {err instanceof HelpdeskError && err.status === 429
              ? `Too many sign-in requests. Try again in ${err.retryAfter ?? 60} seconds.`
              : messageOf(err)}
          </p>
        )}
        <button type="submit" disabled={ask.isPending}>
          {ask.isPending ? 'Sending…' : 'Email me a sign-in link'}
        </button>
      </form>
      <p className="muted">No password: each sign-in is a link sent to your address. Your team's owner or admin can invite you.</p>
    </>
  );
}

const LINK_PAGES: Record<string, { title: string; text: string }> = {
  sign_in_link_expired: { title: 'This sign-in link has expired', text: 'Links work for 15 minutes. Ask for a new one below.' },
  sign_in_link_used: { title: 'This sign-in link was already used', text: 'Each link signs in once. If it was not you who used it, ask for a new one and tell your team’s admin.' },
  sign_in_link_invalid: { title: 'This sign-in link is not valid', text: 'It may have been cut when it was copied. Ask for a new one below.' },
};

function UseLink({ token }: { token: string }) {
  const qc = useQueryClient();
  const [, navigate] = useLocation();
  const signIn = useMutation({
    mutationFn: () => api.data(api.POST('/auth/sessions', { body: { token } })),
    onSuccess: (session) => {
      setCsrfToken(session.csrfToken);
      qc.clear();
      qc.setQueryData(SESSION_KEY, session);
      navigate('/', { replace: true });
    },
  });
  const err = signIn.error;
  if (err) {
    const code = err instanceof HelpdeskError ? err.code : '';
    const page = LINK_PAGES[code] ?? { title: 'Sign-in failed', text: messageOf(err) };
    return (
      <>
        <h1>{page.title}</h1>
        <p role="alert">{page.text}</p>
        <Link href="/sign-in" className="button">
          Get a new link
        </Link>
      </>
    );
  }
  return (
    <>
      <h1>Sign in</h1>
      <p>You opened a sign-in link. Press the button to start your session in this browser.</p>
      <button type="button" onClick={() => signIn.mutate()} disabled={signIn.isPending} autoFocus>
        {signIn.isPending ? 'Signing in…' : 'Sign in'}
      </button>
    </>
  );
}
