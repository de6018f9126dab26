import { ERROR_CODES } from '@helpdesk/contracts';
import { startHarness, type Harness } from './helpers';

/** The error reference every error's `doc_url` points into, served by the gateway at /docs/errors. */
let h: Harness;
let origin: string;
beforeAll(async () => {
  h = await startHarness();
  origin = h.base.replace('/api/v1', '');
});
afterAll(async () => h?.stop());

test('GET /docs/errors: 200, an HTML page with an anchor for every error code, no script', async () => {
  const res = await fetch(`${origin}/docs/errors`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  const html = await res.text();
  expect(html.startsWith('<!doctype html>')).toBe(true);
  for (const code of Object.keys(ERROR_CODES)) expect(html).toContain(`id="${code}"`);
  expect(html).not.toContain('<script');
  expect((await fetch(`${origin}/docs/errors/`)).status).toBe(200);
  const head = await fetch(`${origin}/docs/errors`, { method: 'HEAD' });
  expect(head.status).toBe(200);
  expect(await head.text()).toBe('');
});

test("an error's doc_url, resolved against the API's origin, opens the page at its own entry", async () => {
  const res = await fetch(`${h.base}/auth/whoami`);
  expect(res.status).toBe(401);
  const body = (await res.json()) as { error: { code: string; doc_url: string } };
  expect(body.error.doc_url).toBe(`/docs/errors#${body.error.code}`);
  const url = new URL(body.error.doc_url, origin);
  const page = await (await fetch(url)).text();
  expect(page).toContain(`id="${url.hash.slice(1)}"`);
});

test('the API reference at /docs is still served', async () => {
  const res = await fetch(`${origin}/docs/`);
  expect(res.status).toBe(200);
  expect(await res.text()).toContain('swagger');
});
