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
}

/**
 * The route table: one row per public route. Later services add rows here (and their service URL
 * to GatewayOptions.services / SERVICE_URLS).
 */
export const ROUTES: readonly RouteDef[] = [
  { method: 'GET', path: '/teams/:teamId/tickets', service: 'ticketing', permission: 'view_tickets', staff: true },
  { method: 'POST', path: '/teams/:teamId/tickets', service: 'ticketing', permission: 'manage_tickets', staff: true },
  { method: 'GET', path: '/teams/:teamId/tickets/:ticketId', service: 'ticketing', permission: 'view_tickets', staff: true },
  { method: 'PATCH', path: '/teams/:teamId/tickets/:ticketId', service: 'ticketing', permission: 'manage_tickets', staff: true },
  { method: 'DELETE', path: '/teams/:teamId/tickets/:ticketId', service: 'ticketing', permission: 'manage_tickets', staff: true },
  { method: 'GET', path: '/teams/:teamId/tickets/:ticketId/messages', service: 'ticketing', permission: 'view_tickets', staff: true },
  { method: 'POST', path: '/teams/:teamId/tickets/:ticketId/messages', service: 'ticketing', permission: 'manage_tickets', staff: true },
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
