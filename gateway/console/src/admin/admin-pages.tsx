import { Link, Redirect, Route, Switch, useLocation } from 'wouter';
import { useSession } from '../api/session';
import { ApiKeysPage } from './api-keys-page';
import { MembersPage } from './members-page';
import { SessionsPage } from './sessions-page';
import { WebhookDeliveriesPage, WebhooksPage } from './webhooks-page';
import { WidgetPage } from './widget-page';

/** What a team sets up first (issue 35 item 5): members and invites, API keys, webhooks, the widget; and where one is signed in. */
export default function AdminPages() {
  const { can } = useSession();
  const [location] = useLocation();
  const sections = [
    { href: '/members', label: 'Members and invites', show: can('view_members') },
    { href: '/api-keys', label: 'API keys', show: true },
    { href: '/sessions', label: 'Sessions', show: true },
    { href: '/webhooks', label: 'Webhooks', show: can('view_webhooks') },
    { href: '/widget', label: 'Chat widget', show: can('manage_settings') },
  ].filter((s) => s.show);
  return (
    <div className="admin">
      <nav className="subnav" aria-label="Admin">
        <ul>
          {sections.map((s) => (
            <li key={s.href}>
              <Link href={s.href} aria-current={location.startsWith(s.href) ? 'page' : undefined}>
                {s.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <div className="admin-body">
        <Switch>
          <Route path="/members" component={MembersPage} />
          <Route path="/api-keys" component={ApiKeysPage} />
          <Route path="/sessions" component={SessionsPage} />
          <Route path="/webhooks" component={WebhooksPage} />
          <Route path="/webhooks/:webhookId">{(p) => <WebhookDeliveriesPage webhookId={p.webhookId} />}</Route>
          <Route path="/widget" component={WidgetPage} />
          <Route>
            <Redirect to={sections[0]?.href ?? '/api-keys'} replace />
          </Route>
        </Switch>
      </div>
    </div>
  );
}
