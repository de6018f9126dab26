/**
 * What the gateway serves outside `/api` is exactly what `publicRootPaths()` lists (a deployment
 * derives its Ingress paths from it): every mounted non-API route below is served and lies under a
 * listed root, every listed root serves something, and any other path outside `/api` is 404.
 */
import { publicRootPaths, startGateway, type RunningGateway } from '../src';
import { logger, tokens } from './helpers';

/** One request per part the gateway mounts outside `/api`. A new mount gets its line here. */
const MOUNTED: [method: string, path: string][] = [
  ['GET', '/widget/v1.js'],
  ['GET', '/docs/'],
  ['GET', '/help/some-team'],
  ['GET', '/billing/portal/00000000-0000-4000-8000-000000000000/a-session'],
  ['POST', '/billing/stripe/webhook'],
  ['GET', '/app/'],
];

let gw: RunningGateway;
let origin: string;
beforeAll(async () => {
  gw = await startGateway({ port: 0, mongoUrl: 'memory:', tokens, logger, services: {} });
  origin = new URL(gw.url).origin;
});
afterAll(() => gw.stop());

const isUnder = (path: string, root: string) => path === root || path.startsWith(`${root}/`);

/** Not the API's 404 for an unknown path: some part of the gateway answered it. */
async function served(method: string, path: string): Promise<boolean> {
  const res = await fetch(`${origin}${path}`, { method, redirect: 'manual' });
  const text = await res.text();
  return !(res.status === 404 && text.includes('"route_not_found"'));
}

it('lists path prefixes outside /api, without the cluster-internal ones', () => {
  const roots = publicRootPaths();
  expect(roots.length).toBeGreaterThan(0);
  for (const root of roots) expect(root).toMatch(/^\/[a-z0-9-]+$/);
  expect(roots).not.toEqual(expect.arrayContaining(['/api']));
  for (const internal of ['/healthz', '/readyz', '/metrics']) expect(roots).not.toContain(internal);
});

it.each(MOUNTED)('%s %s is served, under a listed root', async (method, path) => {
  expect(publicRootPaths().some((root) => isUnder(path, root))).toBe(true);
  expect(await served(method, path)).toBe(true);
});

it('every listed root serves something', () => {
  for (const root of publicRootPaths()) expect([root, MOUNTED.some(([, path]) => isUnder(path, root))]).toEqual([root, true]);
});

it.each(['/', '/apps', '/widgets/v1.js', '/helpdesk', '/metrics', '/api', '/docsx'])('%s, outside every root and /api/v1, is 404 route_not_found', async (path) => {
  expect(await served('GET', path)).toBe(false);
});
