import { connect } from 'node:net';
import { INTERNAL_TOKEN_HEADER } from '@helpdesk/contracts';
import { bearer, jsonHeaders, startHarness, tokens, type Harness } from './helpers';

/** Sends exact bytes (fetch normalises header whitespace) and returns status line + raw response. */
function rawRequest(port: number, head: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1', () => sock.write(head));
    let text = '';
    sock.on('data', (d) => {
      text += d.toString('latin1');
      if (/\r\n\r\n/.test(text) && /content-length: (\d+)/i.test(text)) {
        const len = Number(/content-length: (\d+)/i.exec(text)![1]);
        if (text.length - text.indexOf('\r\n\r\n') - 4 >= len) sock.end();
      }
    });
    sock.on('end', () => resolve({ status: Number(text.split(' ')[1]), text }));
    sock.on('error', reject);
  });
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

const get = (url: string, key?: string, extra: Record<string, string> = {}) =>
  fetch(url, { headers: { ...(key ? bearer(key) : {}), ...extra } });

async function expectError(res: Response, status: number, code: string) {
  const body = (await res.json()) as any;
  expect({ status: res.status, code: body.error?.code }).toEqual({ status, code });
  expect(body.success).toBe(false);
  const rid = res.headers.get('x-svc-request-id');
  expect(rid).toMatch(/^req_[A-Za-z0-9]{24}$/);
  expect(body.error.request_id).toBe(rid);
  expect(body.meta.requestId).toBe(rid);
  expect(typeof body.error.message).toBe('string');
  expect(JSON.stringify(body)).not.toMatch(/\bat .*\.ts:\d+|stack/);
  return body;
}

describe('authentication', () => {
  it('missing header → 401 authentication_required, with a request id', async () => {
    await expectError(await get(`${h.base}/auth/whoami`), 401, 'authentication_required');
  });

  it.each([
    ['lowercase scheme', (k: string) => `bearer ${k}`],
    ['other scheme', (k: string) => `Token ${k}`],
    ['no key', () => 'Bearer'],
    ['two spaces', (k: string) => `Bearer  ${k}`],
    ['tab', (k: string) => `Bearer\t${k}`],
    ['trailing word', (k: string) => `Bearer ${k} x`],
    ['space inside key', (k: string) => `Bearer ${k.slice(0, 10)} ${k.slice(10)}`],
    ['no space', (k: string) => `Bearer${k}`],
  ])('malformed header (%s) → 401 authentication_required', async (_name, make) => {
    const r = await rawRequest(
      h.gw.port,
      `GET /api/v1/auth/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: ${make(h.keys.sk_test)}\r\nConnection: close\r\n\r\n`,
    );
    expect(r.status).toBe(401);
    expect(r.text).toMatch(/"code":"authentication_required"/);
    expect(r.text).toMatch(/x-svc-request-id: req_/i);
  });

  it('a newline inside the header is refused', async () => {
    const r = await rawRequest(
      h.gw.port,
      `GET /api/v1/auth/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer\r\n ${h.keys.sk_test}\r\nConnection: close\r\n\r\n`,
    );
    expect([400, 401]).toContain(r.status);
    expect(r.text).not.toMatch(/"success":true/);
    expect(r.text).toMatch(/x-svc-request-id: req_/i);
    expect(r.text).toMatch(/"request_id":"req_/);
  });

  it('unknown prefix → invalid_key_format', async () => {
    await expectError(await get(`${h.base}/auth/whoami`, 'xk_test_' + 'a'.repeat(40)), 401, 'invalid_key_format');
    await expectError(await get(`${h.base}/auth/whoami`, 'abc'), 401, 'invalid_key_format');
  });

  it('recognised prefix, unknown or mistyped key → invalid_api_key', async () => {
    await expectError(await get(`${h.base}/auth/whoami`, 'sk_test_' + 'a'.repeat(40)), 401, 'invalid_api_key');
    await expectError(await get(`${h.base}/auth/whoami`, h.keys.sk_test.slice(0, -1)), 401, 'invalid_api_key');
    await expectError(await get(`${h.base}/auth/whoami`, 'sk_test_short'), 401, 'invalid_api_key');
  });

  it('revoked key → invalid_api_key (takes effect at once with cache TTL 0)', async () => {
    const { key, record } = await h.gw.admin.createKey({ teamId: h.team.id, type: 'secret', mode: 'test' });
    expect((await get(`${h.base}/auth/whoami`, key)).status).toBe(200);
    expect(await h.gw.admin.revokeKey(record.id)).toBe(true);
    await expectError(await get(`${h.base}/auth/whoami`, key), 401, 'invalid_api_key');
    expect(await h.gw.admin.revokeKey(record.id)).toBe(false);
  });

  it('expired key → key_expired', async () => {
    const { key } = await h.gw.admin.createKey({ teamId: h.team.id, type: 'secret', mode: 'live', expiresAt: new Date(Date.now() - 1000) });
    await expectError(await get(`${h.base}/auth/whoami`, key), 401, 'key_expired');
    const { key: later } = await h.gw.admin.createKey({ teamId: h.team.id, type: 'secret', mode: 'live', expiresAt: new Date(Date.now() + 60_000) });
    expect((await get(`${h.base}/auth/whoami`, later)).status).toBe(200);
  });

  it('keys are stored hashed, listed by prefix only', async () => {
    const list = await h.gw.admin.listKeys(h.team.id);
    const sk = list.find((k) => k.id === h.ids.sk_test)!;
    expect(sk.prefix).toBe(h.keys.sk_test.slice(0, 12));
    expect(JSON.stringify(list)).not.toContain(h.keys.sk_test);
    expect(JSON.stringify(list)).not.toContain(h.keys.sk_test.slice(12));
  });
});

describe('whoami', () => {
  it.each(['sk_test', 'sk_live', 'pk_test', 'pk_live'] as const)('%s', async (kind) => {
    const res = await get(`${h.base}/auth/whoami`, h.keys[kind]);
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.success).toBe(true);
    expect(body.meta.requestId).toBe(res.headers.get('x-svc-request-id'));
    expect(body.data).toEqual({
      teamId: h.team.id,
      teamName: 'Acme Support',
      teamSlug: h.team.slug,
      keyId: h.ids[kind],
      keyType: kind.startsWith('sk') ? 'secret' : 'publishable',
      environment: kind.endsWith('test') ? 'test' : 'live',
      createdAt: expect.any(String),
      subscriptionStatus: 'active',
      // no workspace service here: the team has no owner, so its keys belong to no member
      memberId: null,
    });
    expect(res.headers.get('x-ratelimit-limit')).toBe(kind.startsWith('sk') ? '120' : '60');
  });

  it('POST /auth/whoami → 405 with Allow: GET', async () => {
    const res = await fetch(`${h.base}/auth/whoami`, { method: 'POST', headers: bearer(h.keys.sk_test) });
    await expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET');
  });
});

describe('routing and ids', () => {
  it('unknown path → 404 route_not_found (inside and outside /api/v1)', async () => {
    await expectError(await get(`${h.base}/nope`, h.keys.sk_test), 404, 'route_not_found');
    await expectError(await get(`${h.teamUrl}/tickets/tkt_abcdefgh/nope`, h.keys.sk_test), 404, 'route_not_found');
    await expectError(await get(`${h.base.replace('/api/v1', '')}/elsewhere`), 404, 'route_not_found');
  });

  it('known path, wrong verb → 405 with Allow', async () => {
    const res = await fetch(`${h.teamUrl}/tickets`, { method: 'PUT', headers: jsonHeaders(h.keys.sk_test), body: '{}' });
    await expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, POST');
    const one = await fetch(`${h.teamUrl}/tickets/tkt_abcdefgh12`, { method: 'POST', headers: jsonHeaders(h.keys.sk_test), body: '{}' });
    await expectError(one, 405, 'method_not_allowed');
    expect(one.headers.get('allow')).toBe('GET, PATCH, DELETE');
  });

  it('path id neither UUID nor known prefixed id → 400 invalid_id_format', async () => {
    const body = await expectError(await get(`${h.teamUrl}/tickets/not-an-id`, h.keys.sk_test), 400, 'invalid_id_format');
    expect(body.error.param).toBe('ticketId');
    await expectError(await get(`${h.teamUrl}/tickets/zzz_abcdefgh12/messages`, h.keys.sk_test), 400, 'invalid_id_format');
    await expectError(await get(`${h.base}/teams/not-a-uuid/tickets`, h.keys.sk_test), 400, 'invalid_id_format');
    expect((await get(`${h.teamUrl}/tickets/tkt_abcdefgh12`, h.keys.sk_test)).status).toBe(200);
  });
});

describe('team, partition, publishable keys, permissions', () => {
  it('another team in the URL → 403 team_access_denied', async () => {
    await expectError(await get(`${h.base}/teams/${h.other.id}/tickets`, h.keys.sk_test), 403, 'team_access_denied');
    await expectError(await get(`${h.teamUrl}/tickets`, h.otherKey), 403, 'team_access_denied');
  });

  it('the internal token carries the key partition, team, key and permissions', async () => {
    for (const kind of ['sk_test', 'sk_live'] as const) {
      const res = await get(`${h.teamUrl}/tickets`, h.keys[kind]);
      expect(res.status).toBe(200);
      const { data } = (await res.json()) as any;
      expect(data.ctx).toMatchObject({ teamId: h.team.id, mode: kind.slice(3), keyId: h.ids[kind], keyType: 'secret', memberId: null });
      expect(data.ctx.permissions).toContain('manage_tickets');
      expect(data.ctx.requestId).toBe(res.headers.get('x-svc-request-id'));
    }
  });

  it('publishable keys: write → publishable_key_write, staff read → publishable_key_forbidden', async () => {
    for (const kind of ['pk_test', 'pk_live'] as const) {
      await expectError(
        await fetch(`${h.teamUrl}/tickets`, { method: 'POST', headers: jsonHeaders(h.keys[kind]), body: '{"title":"x"}' }),
        403,
        'publishable_key_write',
      );
      await expectError(
        await fetch(`${h.teamUrl}/tickets/tkt_abcdefgh12`, { method: 'DELETE', headers: bearer(h.keys[kind]) }),
        403,
        'publishable_key_write',
      );
      await expectError(await get(`${h.teamUrl}/tickets`, h.keys[kind]), 403, 'publishable_key_forbidden');
    }
    expect(h.backend.seen.some((s) => s.ctx.keyType === 'publishable')).toBe(false);
  });

  it('a scoped key lacking the permission → 403 insufficient_permissions', async () => {
    const { key } = await h.gw.admin.createKey({ teamId: h.team.id, type: 'secret', mode: 'test', scopes: ['view_tickets'] });
    expect((await get(`${h.teamUrl}/tickets`, key)).status).toBe(200);
    await expectError(
      await fetch(`${h.teamUrl}/tickets`, { method: 'POST', headers: jsonHeaders(key), body: '{"title":"x"}' }),
      403,
      'insufficient_permissions',
    );
    const { key: none } = await h.gw.admin.createKey({ teamId: h.team.id, type: 'secret', mode: 'test', scopes: ['view_articles'] });
    await expectError(await get(`${h.teamUrl}/tickets`, none), 403, 'insufficient_permissions');
  });

  it('admin refuses publishable scopes beyond the public ones', async () => {
    await expect(h.gw.admin.createKey({ teamId: h.team.id, type: 'publishable', mode: 'test', scopes: ['manage_tickets'] })).rejects.toThrow(/not allowed/);
  });
});

describe('bodies and proxying', () => {
  it('forwards method, path, query string and the raw body bytes; strips Authorization', async () => {
    const raw = '{"title":  "Printer on fire",\n  "tags": ["a", "b"] }';
    const res = await fetch(`${h.teamUrl}/tickets?expand[]=customer&page=2`, { method: 'POST', headers: jsonHeaders(h.keys.sk_test), body: raw });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const seen = h.backend.seen.at(-1)!;
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe(`/teams/${h.team.id}/tickets?expand[]=customer&page=2`);
    expect(seen.contentLength).toBe(String(Buffer.byteLength(raw)));
    expect(seen.body).toEqual({ title: 'Printer on fire', tags: ['a', 'b'] });
    expect(seen.authorization).toBeUndefined();
    expect(res.headers.get('x-ratelimit-limit')).toBe('120');
  });

  it('invalid JSON → 400 invalid_json; wrong content type → 400 invalid_json', async () => {
    const before = h.backend.calls();
    await expectError(await fetch(`${h.teamUrl}/tickets`, { method: 'POST', headers: jsonHeaders(h.keys.sk_test), body: '{"title":' }), 400, 'invalid_json');
    await expectError(
      await fetch(`${h.teamUrl}/tickets`, { method: 'POST', headers: { ...bearer(h.keys.sk_test), 'content-type': 'text/plain' }, body: '{"title":"x"}' }),
      400,
      'invalid_json',
    );
    await expectError(
      await fetch(`${h.teamUrl}/tickets/tkt_abcdefgh12`, { method: 'PATCH', headers: bearer(h.keys.sk_test), body: '{"title":"x"}' }),
      400,
      'invalid_json',
    );
    // Bytes that are not UTF-8 are refused, never decoded into replacement characters.
    const latin1 = Buffer.concat([Buffer.from('{"title":"Caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const bad = await expectError(await fetch(`${h.teamUrl}/tickets`, { method: 'POST', headers: jsonHeaders(h.keys.sk_test), body: latin1 }), 400, 'invalid_json');
    expect(bad.error.message).toMatch(/UTF-8/);
    expect(h.backend.calls()).toBe(before);
  });

  it('a service error passes through unchanged, without internals', async () => {
    const res = await fetch(`${h.teamUrl}/tickets`, { method: 'POST', headers: jsonHeaders(h.keys.sk_test), body: '{"fail":"crash"}' });
    const body = await expectError(res, 500, 'internal_error');
    expect(JSON.stringify(body)).not.toContain('exploded');
  });

  it('services refuse a request without a valid internal token', async () => {
    const url = `${h.backend.url}/teams/${h.team.id}/tickets`;
    const none = await fetch(url);
    expect(none.status).toBe(401);
    expect(((await none.json()) as any).error.code).toBe('internal_token_invalid');
    const forged = await fetch(url, { headers: { [INTERNAL_TOKEN_HEADER]: 'eyJhbGciOiJIUzI1NiJ9.e30.x' } });
    expect(forged.status).toBe(401);
    const good = await tokens.sign({ teamId: h.team.id, mode: 'test', keyId: 'key_x', keyType: 'secret', memberId: null, permissions: [], requestId: 'req_x' });
    expect((await fetch(url, { headers: { [INTERNAL_TOKEN_HEADER]: good } })).status).toBe(200);
  });
});

describe('failures inside the gateway', () => {
  it('service down → 503 service_unavailable', async () => {
    const down = await startHarness({ services: { ticketing: 'http://127.0.0.1:1' } });
    try {
      const res = await get(`${down.teamUrl}/tickets`, down.keys.sk_test);
      await expectError(res, 503, 'service_unavailable');
      expect(res.headers.get('x-ratelimit-remaining')).toBe('119');
    } finally {
      await down.stop();
    }
  });

  it('an unexpected exception → 500 internal_error with no stack or message leaked', async () => {
    const broken = {
      sign: async () => {
        throw new Error('jose blew up in /work/secret/file.ts');
      },
      verify: tokens.verify.bind(tokens),
    } as unknown as typeof tokens;
    const bad = await startHarness({ tokens: broken });
    try {
      const res = await get(`${bad.teamUrl}/tickets`, bad.keys.sk_test);
      const body = await expectError(res, 500, 'internal_error');
      expect(JSON.stringify(body)).not.toMatch(/jose|secret|file\.ts/);
    } finally {
      await bad.stop();
    }
  });
});
