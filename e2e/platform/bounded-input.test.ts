/**
 * Bounded input (docs/adr/0011): random deep, wide and odd JSON thrown at the ticket and customer
 * endpoints through the gateway gets a success or a documented 4xx, never a 500. Every answer is also
 * checked against the OpenAPI document by the test client.
 */
import fc from 'fast-check';
import { FREE_FORM } from '@helpdesk/contracts';
import { startTestPlatform, type TestPlatform } from '../support/platform';

let tp: TestPlatform;
beforeAll(async () => {
  tp = await startTestPlatform();
}, 60_000);
afterAll(() => tp?.stop());

const RUNS = 40;
const nest = (depth: number, leaf: unknown = 1): unknown => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { k: v };
  return v;
};

/** Deep (up to 3,000 levels), wide, long, odd keys, and any JSON at all. */
const oddJson = fc.oneof(
  fc.jsonValue({ maxDepth: 8 }),
  fc.integer({ min: 1, max: 3_000 }).map((d) => ({ deep: nest(d) })),
  fc.dictionary(fc.string({ maxLength: 60 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 120 }),
  fc.record({ long: fc.string({ minLength: FREE_FORM.stringMax - 5, maxLength: FREE_FORM.stringMax + 5 }) }),
  fc.array(fc.constantFrom('$where', 'a.b', '', 'x'.repeat(41), '__proto__', 'constructor', 'ok'), { maxLength: 5 }).map((keys) =>
    Object.fromEntries(keys.map((k, i) => [k, { [k]: i }])),
  ),
);

const expectHandled = (status: number, ok: number, what: string) => {
  if (status !== ok && (status < 400 || status >= 500)) throw new Error(`${what}: answered ${status}`);
};

test('ticket create: any metadata is stored or refused with a documented 400', async () => {
  await fc.assert(
    fc.asyncProperty(oddJson, async (metadata) => {
      const res = await tp.api.post(`${tp.teamPath}/tickets`, { title: 'fuzz', metadata });
      expectHandled(res.status, 201, 'POST /tickets');
      if (res.status === 400) expect(res.body.error.code).toMatch(/^parameter_(invalid|missing)$|^invalid_json$/);
    }),
    { numRuns: RUNS },
  );
}, 120_000);

test('metadata nested thousands of levels deep (what once overflowed mongoose\'s clone) is a 400, on tickets and customers', async () => {
  const deep = (d: number) => `${'{"k":['.repeat(d)}1${']}'.repeat(d)}`; // as text: JSON.stringify would overflow
  let n = 0;
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: FREE_FORM.depthMax, max: 10_000 }), async (depth) => {
      const ticket = await tp.api.request('POST', `${tp.teamPath}/tickets`, { rawBody: `{"title":"deep","metadata":${deep(depth)}}` });
      expect([ticket.status, ticket.body.error?.param]).toEqual([400, 'metadata']);
      const customer = await tp.api.request('POST', `${tp.teamPath}/customers`, { rawBody: `{"name":"Deep","email":"deep${++n}@example.com","metadata":${deep(depth)}}` });
      expect([customer.status, customer.body.error?.param]).toEqual([400, 'metadata']);
    }),
    { numRuns: 15 },
  );
}, 120_000);

test('ticket update: any metadata patch is merged or refused, and the ticket stays readable', async () => {
  const created = await tp.api.post(`${tp.teamPath}/tickets`, { title: 'patched by fuzz' });
  expect(created.status).toBe(201);
  const path = `${tp.teamPath}/tickets/${created.body.data.id}`;
  await fc.assert(
    fc.asyncProperty(oddJson, async (metadata) => {
      const res = await tp.api.patch(path, { metadata });
      expectHandled(res.status, 200, 'PATCH /tickets/{id}');
      expect((await tp.api.get(path)).status).toBe(200);
    }),
    { numRuns: RUNS },
  );
}, 120_000);

test('customer create and update: any metadata is stored or refused with a documented 400', async () => {
  let n = 0;
  await fc.assert(
    fc.asyncProperty(oddJson, oddJson, async (metadata, patch) => {
      n++;
      const res = await tp.api.post(`${tp.teamPath}/customers`, { name: 'Fuzz', email: `fuzz${n}@example.com`, metadata });
      expectHandled(res.status, 201, 'POST /customers');
      if (res.status !== 201) return;
      const upd = await tp.api.patch(`${tp.teamPath}/customers/${res.body.data.id}`, { metadata: patch });
      expectHandled(upd.status, 200, 'PATCH /customers/{id}');
    }),
    { numRuns: RUNS },
  );
}, 120_000);

test('whole bodies of any JSON, any text and any bytes are answered with a documented 4xx at worst', async () => {
  const bodies = fc.oneof(
    fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v)),
    // Written as text: JSON.stringify itself would overflow the stack on such a value.
    fc.integer({ min: 1, max: 20_000 }).map((d) => `${'{"k":['.repeat(d)}1${']}'.repeat(d)}`),
    fc.string({ maxLength: 200 }),
    fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b).toString('latin1')),
  );
  await fc.assert(
    fc.asyncProperty(bodies, fc.constantFrom('tickets', 'customers'), async (raw, resource) => {
      const res = await tp.api.request('POST', `${tp.teamPath}/${resource}`, { rawBody: raw });
      expectHandled(res.status, 201, `POST /${resource} with a raw body`);
    }),
    { numRuns: RUNS * 2 },
  );
}, 120_000);

test('bytes that are not UTF-8 are invalid_json, not replacement characters', async () => {
  const res = await fetch(`${tp.baseUrl}${tp.teamPath}/tickets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tp.team.sk_test}`, 'content-type': 'application/json' },
    body: Buffer.concat([Buffer.from('{"title":"Caf'), Buffer.from([0xe9]), Buffer.from('"}')]),
  });
  expect(res.status).toBe(400);
  expect(((await res.json()) as any).error.code).toBe('invalid_json');
});
