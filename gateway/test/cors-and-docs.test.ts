import { buildOpenApiDocument } from '@helpdesk/contracts';
import { bearer, jsonHeaders, startHarness, type Harness } from './helpers';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const ORIGIN = 'https://shop.example.com';

describe('CORS (docs/adr/0008)', () => {
  it('answers a preflight without a key, allowing GET with the Authorization header only', async () => {
    const res = await fetch(`${h.teamUrl}/tickets`, {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    expect(res.headers.get('access-control-max-age')).toBe('600');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(h.backend.calls()).toBe(0);
  });

  it('never allows a write in a preflight: a browser page cannot send one with any key', async () => {
    const res = await fetch(`${h.teamUrl}/tickets`, { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'POST' } });
    expect(res.headers.get('access-control-allow-methods')).toBe('GET');
    expect(res.headers.get('access-control-allow-methods')).not.toMatch(/POST/);
  });

  it('an OPTIONS without Origin is no preflight: it needs a key like any request', async () => {
    expect((await fetch(`${h.teamUrl}/tickets`, { method: 'OPTIONS' })).status).toBe(401);
  });

  it('gives a publishable key CORS headers on every answer, errors included', async () => {
    const who = await fetch(`${h.base}/auth/whoami`, { headers: { ...bearer(h.keys.pk_live), origin: ORIGIN } });
    expect(who.status).toBe(200);
    expect(who.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(who.headers.get('access-control-expose-headers')).toMatch(/x-svc-request-id/);
    expect(who.headers.get('vary')).toMatch(/Origin/);
    const staff = await fetch(`${h.teamUrl}/tickets`, { headers: { ...bearer(h.keys.pk_live), origin: ORIGIN } });
    expect(staff.status).toBe(403);
    expect(staff.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    const wrong = await fetch(`${h.base}/auth/whoami`, { headers: { ...bearer('pk_live_' + 'x'.repeat(40)), origin: ORIGIN } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  });

  it('never gives a secret key CORS headers, whatever it asks', async () => {
    for (const res of [
      await fetch(`${h.base}/auth/whoami`, { headers: { ...bearer(h.keys.sk_live), origin: ORIGIN } }),
      await fetch(`${h.teamUrl}/tickets`, { headers: { ...bearer(h.keys.sk_test), origin: ORIGIN } }),
      await fetch(`${h.teamUrl}/tickets`, { method: 'POST', headers: { ...jsonHeaders(h.keys.sk_test), origin: ORIGIN }, body: '{}' }),
      await fetch(`${h.base}/auth/whoami`, { headers: { ...bearer('sk_live_' + 'x'.repeat(40)), origin: ORIGIN } }),
    ]) {
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('adds nothing for requests without Origin (servers)', async () => {
    const res = await fetch(`${h.base}/auth/whoami`, { headers: bearer(h.keys.pk_live) });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('the OpenAPI document and the API reference', () => {
  it('serves the document without a key, equal to what the manifest builds', async () => {
    const res = await fetch(`${h.base}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-svc-request-id')).toMatch(/^req_/);
    expect(await res.json()).toEqual(buildOpenApiDocument());
  });

  it('serves the HTML reference at /docs from the npm package, without a key and without a CDN', async () => {
    const res = await fetch(`${h.base.replace('/api/v1', '')}/docs/`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/swagger-ui/);
    expect(html).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs|jsdelivr)/);
    const init = await fetch(`${h.base.replace('/api/v1', '')}/docs/swagger-ui-init.js`);
    expect(init.status).toBe(200);
    expect(await init.text()).toContain('/api/v1/openapi.json');
    const bundle = await fetch(`${h.base.replace('/api/v1', '')}/docs/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
  });
});
