import { colonPath, type OperationDef } from './operation';

/** One public route: an operation of the API manifest, by its id. */
export interface Route {
  id: string;
  op: OperationDef;
}

interface Node {
  statics: Map<string, Node>;
  param: Node | null;
  paramName: string | null;
  methods: Map<string, Route>;
  /** `Allow` header value for this path. */
  allow: string;
  /** The path template (`/teams/{teamId}/tickets`) of the operations here. */
  path: string;
}

const newNode = (): Node => ({ statics: new Map(), param: null, paramName: null, methods: new Map(), allow: '', path: '' });

export interface RouteMatch {
  /** The route for this method, or null when the path exists with other methods (405). */
  route: Route | null;
  /** The matched path template, whatever the method. */
  path: string;
  allow: string;
  /** Param values in path order, with their names. */
  paramNames: readonly string[];
  paramValues: string[];
}

/**
 * The public routes, built from the API manifest (every public operation; internal ones are never
 * routed): the gateway routes with it, and the tests' OpenAPI check finds operations with it, so both
 * match alike. A segment trie: static segments win over params; one trailing slash is tolerated;
 * matching allocates only the param arrays.
 */
export class RouteTable {
  private readonly root = newNode();
  private readonly names = new Map<Node, string[]>();

  constructor(operations: Record<string, OperationDef>) {
    for (const [id, op] of Object.entries(operations)) if (!op.internal) this.add({ id, op });
  }

  private add(r: Route) {
    let node = this.root;
    const names: string[] = [];
    const path = colonPath(r.op.path);
    for (const seg of path.split('/').slice(1)) {
      if (seg.startsWith(':')) {
        const name = seg.slice(1);
        if (node.param && node.paramName !== name) throw new Error(`route ${path}: param :${name} clashes with :${node.paramName}`);
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
    if (node.methods.has(r.op.method)) throw new Error(`duplicate route ${r.op.method} ${path}`);
    node.methods.set(r.op.method, r);
    node.path = r.op.path;
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
    return { route: node.methods.get(method) ?? null, path: node.path, allow: node.allow, paramNames: this.names.get(node)!, paramValues: values };
  }
}
