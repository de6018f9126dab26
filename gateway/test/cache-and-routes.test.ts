import { createGatewayAdmin } from '../src/admin';
import { ROUTES, RouteTable, type RouteDef } from '../src/routes';
import { bearer, startHarness, startMongo } from './helpers';

it('a key revoked by another process (the CLI) stops working within the cache TTL', async () => {
  const mongo = await startMongo();
  const dbName = `gw_cache_${Date.now()}`;
  const h = await startHarness({ keyCacheTtlMs: 300, dbName }, mongo);
  const cli = await createGatewayAdmin(mongo.uri(), dbName);
  try {
    const { key, record } = await h.gw.admin.createKey({ teamId: h.team.id, type: 'secret', mode: 'test' });
    const whoami = () => fetch(`${h.base}/auth/whoami`, { headers: bearer(key) });
    expect((await whoami()).status).toBe(200);
    expect(await cli.revokeKey(record.id)).toBe(true);
    // still cached: the bound is the TTL, not zero
    expect((await whoami()).status).toBe(200);
    await new Promise((r) => setTimeout(r, 400));
    expect((await whoami()).status).toBe(401);
  } finally {
    await cli.close();
    await h.stop();
    await mongo.close();
  }
});

it('publishable keys may GET routes marked publicRead (with the permission), nothing else', async () => {
  const routes: RouteDef[] = [
    ...ROUTES,
    { method: 'GET', path: '/teams/:teamId/articles', service: 'ticketing', permission: 'view_articles', staff: false, publicRead: true },
    { method: 'GET', path: '/teams/:teamId/audit-log', service: 'ticketing', permission: 'view_audit_log', staff: false },
  ];
  const h = await startHarness({ routes });
  try {
    const a = await fetch(`${h.teamUrl}/articles`, { headers: bearer(h.keys.pk_live) });
    expect(a.status).toBe(200);
    expect(((await a.json()) as any).data.ctx).toMatchObject({ keyType: 'publishable', mode: 'live', permissions: ['view_articles', 'view_community'] });
    const w = await fetch(`${h.teamUrl}/audit-log`, { headers: bearer(h.keys.pk_live) });
    expect(w.status).toBe(403);
    expect(((await w.json()) as any).error.code).toBe('insufficient_permissions');
    expect((await fetch(`${h.teamUrl}/audit-log`, { headers: bearer(h.keys.sk_live) })).status).toBe(200);
  } finally {
    await h.stop();
  }
});

it('checks slug path params as slugs, not as ids', async () => {
  const routes: RouteDef[] = [
    { method: 'PATCH', path: '/teams/:teamId/statuses/:statusKey', service: 'ticketing', permission: null, staff: true, slugParams: ['statusKey'] },
  ];
  const h = await startHarness({ routes });
  try {
    const patch = (key: string) =>
      fetch(`${h.teamUrl}/statuses/${key}`, { method: 'PATCH', headers: { ...bearer(h.keys.sk_test), 'content-type': 'application/json' }, body: '{}' });
    expect((await patch('vip_customer-2')).status).toBe(200);
    for (const bad of ['VIP', '-vip', 'a%20b', 'x'.repeat(65)]) {
      const res = await patch(bad);
      expect([bad, res.status]).toEqual([bad, 400]);
      expect(((await res.json()) as any).error).toMatchObject({ code: 'invalid_id_format', param: 'statusKey' });
    }
  } finally {
    await h.stop();
  }
});

it('the route table refuses clashing or duplicate rows', () => {
  const row = (method: RouteDef['method'], path: string): RouteDef => ({ method, path, service: 's', permission: null, staff: true });
  expect(() => new RouteTable([row('GET', '/a/:x'), row('GET', '/a/:x')])).toThrow(/duplicate/);
  expect(() => new RouteTable([row('GET', '/a/:x'), row('GET', '/a/:y/b')])).toThrow(/clashes/);
  const t = new RouteTable([row('GET', '/a/:x'), row('POST', '/a/:x'), row('GET', '/a/static')]);
  expect(t.match('GET', '/a/static')!.paramValues).toEqual([]);
  expect(t.match('DELETE', '/a/1')).toMatchObject({ route: null, allow: 'GET, POST' });
  expect(t.match('GET', '/a/1/')!.paramValues).toEqual(['1']);
  expect(t.match('GET', '/a//')).toBeNull();
  expect(t.match('GET', '/a')).toBeNull();
});
