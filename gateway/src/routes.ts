import type { Permission } from '@helpdesk/contracts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One public route. Paths are relative to `/api/v1`; `:name` segments are ids. */
export interface RouteDef {
  method: HttpMethod;
  path: string;
  /** Key of GatewayOptions.services that serves it. */
  service: string;
  /** Permission the key must carry (null: none beyond authentication). */
  permission: Permission | null;
  /** A staff resource: publishable keys may not even read it (publishable_key_forbidden). */
  staff: boolean;
  /** A GET publishable keys may make (public, customer-facing data). */
  publicRead?: boolean;
  /** Path params that are keys chosen by the team (a customer status key), not ids: checked as slugs. */
  slugParams?: readonly string[];
}

const tickets = (method: HttpMethod, path: string, permission: Permission): RouteDef =>
  ({ method, path: `/teams/:teamId/tickets${path}`, service: 'ticketing', permission, staff: true });
const customers = (method: HttpMethod, path: string, permission: Permission, extra: Partial<RouteDef> = {}): RouteDef =>
  ({ method, path: `/teams/:teamId${path}`, service: 'customers', permission, staff: true, ...extra });
const webhooks = (method: HttpMethod, path: string, permission: Permission): RouteDef =>
  ({ method, path: `/teams/:teamId/webhooks${path}`, service: 'webhooks', permission, staff: true });

/**
 * The route table: one row per public route. Later services add rows here (and their service URL
 * to GatewayOptions.services / SERVICE_URLS).
 */
export const ROUTES: readonly RouteDef[] = [
  tickets('GET', '', 'view_tickets'),
  tickets('POST', '', 'manage_tickets'),
  tickets('GET', '/:ticketId', 'view_tickets'),
  tickets('PATCH', '/:ticketId', 'manage_tickets'),
  tickets('DELETE', '/:ticketId', 'manage_tickets'),
  tickets('GET', '/:ticketId/messages', 'view_tickets'),
  tickets('POST', '/:ticketId/messages', 'manage_tickets'),

  customers('GET', '/customers', 'view_customers'),
  customers('POST', '/customers', 'manage_customers'),
  customers('GET', '/customers/:customerId', 'view_customers'),
  customers('PATCH', '/customers/:customerId', 'manage_customers'),
  customers('DELETE', '/customers/:customerId', 'manage_customers'),
  customers('GET', '/customer-groups', 'view_customers'),
  customers('POST', '/customer-groups', 'manage_customers'),
  customers('GET', '/customer-groups/:groupId', 'view_customers'),
  customers('PATCH', '/customer-groups/:groupId', 'manage_customers'),
  customers('DELETE', '/customer-groups/:groupId', 'manage_customers'),
  customers('GET', '/customer-groups/:groupId/members', 'view_customers'),
  customers('POST', '/customer-groups/:groupId/members', 'manage_customers'),
  customers('DELETE', '/customer-groups/:groupId/members', 'manage_customers'),
  // Team-added customer statuses (the spec shows no endpoint for them; docs/adr/0006).
  customers('GET', '/customer-statuses', 'view_customers'),
  customers('POST', '/customer-statuses', 'manage_settings'),
  customers('PATCH', '/customer-statuses/:statusKey', 'manage_settings', { slugParams: ['statusKey'] }),
  customers('DELETE', '/customer-statuses/:statusKey', 'manage_settings', { slugParams: ['statusKey'] }),

  webhooks('GET', '', 'view_webhooks'),
  webhooks('POST', '', 'manage_webhooks'),
  webhooks('POST', '/trigger-test', 'manage_webhooks'),
  webhooks('GET', '/:webhookId', 'view_webhooks'),
  webhooks('PATCH', '/:webhookId', 'manage_webhooks'),
  webhooks('DELETE', '/:webhookId', 'manage_webhooks'),
  // The delivery log and redelivery (the spec shows none; docs/adr/0007).
  webhooks('GET', '/:webhookId/deliveries', 'view_webhooks'),
  webhooks('GET', '/:webhookId/deliveries/:deliveryId', 'view_webhooks'),
  webhooks('POST', '/:webhookId/deliveries/:deliveryId/redeliver', 'manage_webhooks'),
];

interface Node {
  statics: Map<string, Node>;
  param: Node | null;
  paramName: string | null;
  methods: Map<string, RouteDef>;
  /** `Allow` header value for this path. */
  allow: string;
}

const newNode = (): Node => ({ statics: new Map(), param: null, paramName: null, methods: new Map(), allow: '' });

export interface RouteMatch {
  /** The route for this method, or null when the path exists with other methods (405). */
  route: RouteDef | null;
  allow: string;
  /** Param values in path order, with their names. */
  paramNames: readonly string[];
  paramValues: string[];
}

/** A segment trie: static segments win over params; matching allocates only the param arrays. */
export class RouteTable {
  private readonly root = newNode();
  private readonly names = new Map<Node, string[]>();

  constructor(routes: readonly RouteDef[]) {
    for (const r of routes) this.add(r);
  }

  private add(r: RouteDef) {
    let node = this.root;
    const names: string[] = [];
    for (const seg of r.path.split('/').slice(1)) {
      if (seg.startsWith(':')) {
        const name = seg.slice(1);
        if (node.param && node.paramName !== name) throw new Error(`route ${r.path}: param :${name} clashes with :${node.paramName}`);
        node.param ??= newNode();
        node.paramName = name;
        node = node.param;
        names.push(name);
      } else {
        let next = node.statics.get(seg);
        if (!next) node.statics.set(seg, (next = newNode()));
        node = next;
      }
    }
    if (node.methods.has(r.method)) throw new Error(`duplicate route ${r.method} ${r.path}`);
    node.methods.set(r.method, r);
    node.allow = [...node.methods.keys()].join(', ');
    this.names.set(node, names);
  }

  /** Null when no route has this path (404). `path` starts with `/`, without query string. */
  match(method: string, path: string): RouteMatch | null {
    let node: Node | null = this.root;
    const values: string[] = [];
    let start = 1;
    let end = path.length;
    if (end > 1 && path.charCodeAt(end - 1) === 47 /* / */) end--; // one trailing slash is tolerated
    while (start <= end && node) {
      let slash = path.indexOf('/', start);
      if (slash === -1 || slash > end) slash = end;
      const seg = path.slice(start, slash);
      if (seg === '') return null;
      const next: Node | undefined = node.statics.get(seg);
      if (next) node = next;
      else if (node.param) {
        values.push(seg);
        node = node.param;
      } else return null;
      start = slash + 1;
    }
    if (!node || node.methods.size === 0) return null;
    return { route: node.methods.get(method) ?? null, allow: node.allow, paramNames: this.names.get(node)!, paramValues: values };
  }
}
