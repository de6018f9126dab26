import { createGatewayAdmin } from '../src/admin';
import { PUBLIC_OPERATIONS, RouteTable, type OperationDef } from '@helpdesk/contracts';
import { z } from 'zod';
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

/** An operation served by the test backend (which answers as "ticketing"). */
const op = (method: OperationDef['method'], path: string, extra: Partial<OperationDef> = {}): OperationDef => ({
  service: 'ticketing',
  method,
  path,
  tag: 'Test',
  summary: 'test',
  permission: null,
  keys: 'staff',
  params: Object.fromEntries([...path.matchAll(/\{(\w+)\}/g)].map(([, n]) => [n, n === 'teamId' ? 'team' : 'ticket'])) as OperationDef['params'],
  success: { status: 200, data: z.unknown(), shape: 'envelope' },
  errors: [],
  ...extra,
});

it('publishable keys may GET operations marked public (with the permission), nothing else', async () => {
  const operations = {
    ...PUBLIC_OPERATIONS,
    listArticles: op('GET', '/teams/{teamId}/articles', { permission: 'view_articles', keys: 'public' }),
    listAuditLog: op('GET', '/teams/{teamId}/audit-log', { permission: 'view_audit_log', keys: 'secret' }),
  };
  const h = await startHarness({ operations });
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
  const operations = { patchStatus: op('PATCH', '/teams/{teamId}/statuses/{statusKey}', { params: { teamId: 'team', statusKey: 'slug' } }) };
  const h = await startHarness({ operations });
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

it('the route table comes from the manifest, and refuses clashing or duplicate operations', () => {
  expect(() => new RouteTable({ a: op('GET', '/a/{x}'), b: op('GET', '/a/{x}') })).toThrow(/duplicate/);
  expect(() => new RouteTable({ a: op('GET', '/a/{x}'), b: op('GET', '/a/{y}/b') })).toThrow(/clashes/);
  const t = new RouteTable({ a: op('GET', '/a/{x}'), b: op('POST', '/a/{x}'), c: op('GET', '/a/static'), hidden: op('GET', '/internal/x', { internal: true }) });
  expect(t.match('GET', '/a/static')!.paramValues).toEqual([]);
  expect(t.match('GET', '/a/static')!.route!.id).toBe('c');
  expect(t.match('DELETE', '/a/1')).toMatchObject({ route: null, allow: 'GET, POST' });
  expect(t.match('GET', '/a/1/')!.paramValues).toEqual(['1']);
  expect(t.match('GET', '/a//')).toBeNull();
  expect(t.match('GET', '/a')).toBeNull();
  expect(t.match('GET', '/internal/x')).toBeNull(); // internal operations are never routed
  const real = new RouteTable(PUBLIC_OPERATIONS);
  for (const [id, o] of Object.entries(PUBLIC_OPERATIONS)) {
    const path = o.path.replace(/\{(\w+)\}/g, 'tkt_abcdefgh12345678');
    expect([id, real.match(o.method, path)?.route?.id]).toEqual([id, id]);
  }
});
