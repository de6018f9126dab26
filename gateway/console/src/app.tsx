import { lazy, Suspense, useEffect, useState } from 'react';
import { Link, Redirect, Route, Switch, useLocation } from 'wouter';
import { messageOf } from './api/client';
import { useEventStream, useStreamStatus } from './api/events';
import { SessionProvider, useSession, useSessionEnded, useSessionQuery, useSignOut, useSwitchPartition, type Partition } from './api/session';
import { GamePanel, PlayerBadge } from './game/game-panel';
import { InboxPage } from './inbox/inbox-page';
import { Dialog } from './ui/dialog';
import { SHORTCUTS, useHotkeys } from './ui/hotkeys';
import { Toasts } from './ui/toasts';

// Pages a member opens less often load when first opened: the first load stays small.
const GamePage = lazy(() => import('./game/game-page'));
const AdminPages = lazy(() => import('./admin/admin-pages'));
const TicketPage = lazy(() => import('./ticket/ticket-page').then((m) => ({ default: m.TicketPage })));
const SignInPage = lazy(() => import('./sign-in/sign-in-page').then((m) => ({ default: m.SignInPage })));

/** The console: the sign-in pages for everyone, the rest for a signed-in member. */
export function App() {
  const [location] = useLocation();
  const session = useSessionQuery();
  if (location === '/sign-in' || location.startsWith('/sign-in/')) {
    return (
      <Suspense fallback={<p className="loading" role="status">Loading…</p>}>
        <SignInPage signedIn={session.data ?? null} />
      </Suspense>
    );
  }
  if (session.isPending) return <p className="loading" role="status">Loading…</p>;
  if (session.isError) return <FailurePage text={messageOf(session.error)} />;
  if (!session.data) return <Redirect to="/sign-in" replace />;
  return (
    <SessionProvider session={session.data}>
      <Shell />
    </SessionProvider>
  );
}

function FailurePage({ text }: { text: string }) {
  return (
    <main className="center-page" id="main">
      <h1>The console cannot reach the platform</h1>
      <p role="alert">{text}</p>
      <button type="button" onClick={() => window.location.reload()}>
        Try again
      </button>
    </main>
  );
}

function Shell() {
  const { session, can } = useSession();
  const ended = useSessionEnded();
  const [help, setHelp] = useState(false);
  useEventStream();
  useHotkeys({ '?': () => setHelp(true) });
  // The ticket page is fetched once the inbox is up, so opening a ticket waits for no script. Best
  // effort: if the line is down then, opening a ticket fetches it again (React.lazy below).
  useEffect(() => {
    const t = setTimeout(() => void import('./ticket/ticket-page').catch(() => undefined), 500);
    return () => clearTimeout(t);
  }, []);
  if (ended) {
    return (
      <main className="center-page" id="main">
        <h1>Your session has ended</h1>
        <p role="alert">You were signed out (the session was revoked, expired, or your membership changed). Nothing more was saved after that.</p>
        <a className="button" href="/app/sign-in">
          Sign in again
        </a>
      </main>
    );
  }
  const admin = can('manage_members') || can('manage_settings') || can('manage_webhooks');
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <nav aria-label="Main">
          <Link href="/" className="brand">
            {session.team.name}
          </Link>
          <NavLink href="/">Inbox</NavLink>
          {can('game_participation') && <NavLink href="/game">Game</NavLink>}
          {/* Everyone has API keys and sessions; those who manage the team, the rest. */}
          <NavLink href="/admin">{admin ? 'Admin' : 'Account'}</NavLink>
        </nav>
        <div className="topbar-side">
          <StreamBadge />
          <PartitionSwitch />
          {can('game_participation') && <PlayerBadge />}
          <AccountMenu />
        </div>
      </header>
      <div className="layout">
        <main id="main" tabIndex={-1}>
          <Suspense fallback={<p role="status">Loading…</p>}>
            <Switch>
              <Route path="/" component={InboxPage} />
              <Route path="/tickets/:ticketId">{(p) => <TicketPage key={p.ticketId} ticketId={p.ticketId} />}</Route>
              <Route path="/game" component={GamePage} />
              <Route path="/admin" nest>
                <AdminPages />
              </Route>
              <Route>
                <h1>Not found</h1>
                <p>
                  There is no such page. <Link href="/">Back to the inbox</Link>
                </p>
              </Route>
            </Switch>
          </Suspense>
        </main>
        {can('game_participation') && <GamePanel />}
      </div>
      <Toasts />
      <Dialog open={help} title="Keyboard shortcuts" onClose={() => setHelp(false)}>
        <table className="shortcuts">
          <tbody>
            {SHORTCUTS.map(([k, what]) => (
              <tr key={k}>
                <th scope="row">
                  <kbd>{k}</kbd>
                </th>
                <td>{what}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Dialog>
    </>
  );
}

function NavLink({ href, children }: { href: string; children: string }) {
  const [location] = useLocation();
  const current = href === '/' ? location === '/' || location.startsWith('/tickets') : location.startsWith(href);
  return (
    <Link href={href} aria-current={current ? 'page' : undefined}>
      {children}
    </Link>
  );
}

function StreamBadge() {
  const status = useStreamStatus();
  const text = status === 'live' ? 'Live' : status === 'off' ? 'Offline' : status === 'connecting' ? 'Connecting…' : 'Reconnecting…';
  return (
    <span className={`stream stream-${status}`} role="status" title="Updates from the team's event stream">
      {text}
    </span>
  );
}

function PartitionSwitch() {
  const { session } = useSession();
  const switchPartition = useSwitchPartition();
  return (
    <label className="partition">
      <span className="visually-hidden">Data</span>
      <select value={session.mode} disabled={switchPartition.isPending} onChange={(e) => switchPartition.mutate(e.target.value as Partition)}>
        <option value="live">Live data</option>
        <option value="test">Test data</option>
      </select>
    </label>
  );
}

function AccountMenu() {
  const { session } = useSession();
  const signOut = useSignOut();
  return (
    <div className="account">
      <span className="account-name">{session.member.name}</span>
      <button type="button" className="secondary" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
        Sign out
      </button>
    </div>
  );
}
