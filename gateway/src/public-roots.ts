import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * What the gateway serves outside `/api`, by path prefix: the pages and files a browser on the
 * internet opens (an Ingress routes these and `/api` to the gateway, and nothing else). Each part
 * mounts itself under its entry here; any other path outside `/api` (but `/healthz` and `/readyz`,
 * which stay inside the cluster) never reaches them and answers 404 `route_not_found`.
 */
export const PUBLIC_ROOTS = {
  /** The chat widget's script, `/widget/v1.js` (gateway/src/widget.ts). */
  widget: '/widget',
  /** The HTML API reference (gateway/src/docs.ts). */
  docs: '/docs',
  /** The public help center, `/help/{teamSlug}` (gateway/src/help-center.ts). */
  help: '/help',
  /** The local billing portal's pages and Stripe's webhook (gateway/src/billing-pages.ts). */
  billing: '/billing',
  /** The agent console, a browser app for signed-in members (gateway/src/console.ts). */
  app: '/app',
} as const;

const ROOTS: readonly string[] = Object.values(PUBLIC_ROOTS);

/** Every path prefix the gateway serves outside `/api` that must be reachable from the internet. */
export function publicRootPaths(): string[] {
  return [...ROOTS];
}

/** `path` (a path, or a request URL with its query) is `root` or below it. */
export function isUnder(path: string, root: string): boolean {
  if (!path.startsWith(root)) return false;
  const next = path.charCodeAt(root.length);
  return Number.isNaN(next) || next === 47 /* / */ || next === 63; /* ? */
}

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** Requests under a public root go to `pages` (which hand what they do not serve on to `api`); every other one straight to `api`. */
export function publicRootsOnly(pages: Listener, api: Listener): Listener {
  return (req, res) => {
    const url = req.url ?? '/';
    for (const root of ROOTS) {
      if (isUnder(url, root)) {
        pages(req, res);
        return;
      }
    }
    api(req, res);
  };
}
