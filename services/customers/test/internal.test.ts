/** The internal endpoints ticketing calls (services/customers/README.md): exact contract, scope, refusals. */
import { customerSnapshotSchema } from '@helpdesk/contracts';
import { expectError, startHarness, TEAM_B, type Caller, type Harness } from './helpers';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 30_000);
afterAll(async () => {
  await h?.stop();
});

/** What ticketing forwards: the caller's token, which may carry no customer permission at all. */
const ticketAgent: Caller = { permissions: ['view_tickets', 'manage_tickets'] };
let n = 0;
const customer = async (body: Record<string, unknown> = {}, as?: Caller) =>
  (await h.api('POST', '/teams/{team}/customers', { body: { name: `C${++n}`, email: `i${n}@example.com`, ...body }, as })).body.data;

describe('GET /internal/customers/:id', () => {
  test('answers the snapshot (the public customer plus rev)', async () => {
    const c = await customer({ tags: ['vip'] });
    await h.api('PATCH', `/teams/{team}/customers/${c.id}`, { body: { name: 'Renamed' } });
    const r = await h.api('GET', `/internal/customers/${c.id}`, { as: ticketAgent });
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(customerSnapshotSchema.parse(r.body.data)).toEqual({ ...c, name: 'Renamed', updatedAt: expect.any(String), rev: 1 });
  });

  test('404 for an unknown id, another team\'s or the other partition\'s customer', async () => {
    const c = await customer();
    expectError(await h.api('GET', '/internal/customers/cus_doesnotexist000000000000', { as: ticketAgent }), 404, 'resource_not_found');
    expectError(await h.api('GET', `/internal/customers/${c.id}`, { as: { ...ticketAgent, teamId: TEAM_B } }), 404, 'resource_not_found');
    expectError(await h.api('GET', `/internal/customers/${c.id}`, { as: { ...ticketAgent, mode: 'live' } }), 404, 'resource_not_found');
  });
});

describe('GET /internal/customers?email=', () => {
  test('finds the customer case-insensitively', async () => {
    const c = await customer({ email: 'Mixed.Case@Example.com' });
    for (const email of ['mixed.case@example.com', 'MIXED.CASE@EXAMPLE.COM', ' Mixed.Case@Example.com ']) {
      const r = await h.api('GET', `/internal/customers?email=${encodeURIComponent(email)}`, { as: ticketAgent });
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ id: c.id, email: 'Mixed.Case@Example.com', rev: 0 });
    }
  });

  test('404 when no customer of the team and partition has it; 400 when email is missing', async () => {
    await customer({ email: 'only-a@example.com' });
    expectError(await h.api('GET', '/internal/customers?email=nobody%40example.com', { as: ticketAgent }), 404, 'resource_not_found');
    expectError(await h.api('GET', '/internal/customers?email=only-a%40example.com', { as: { ...ticketAgent, teamId: TEAM_B } }), 404, 'resource_not_found');
    expectError(await h.api('GET', '/internal/customers?email=only-a%40example.com', { as: { ...ticketAgent, mode: 'live' } }), 404, 'resource_not_found');
    expectError(await h.api('GET', '/internal/customers', { as: ticketAgent }), 400, 'parameter_missing', 'email');
    expectError(await h.api('GET', '/internal/customers?email=a%40b.co&x=1', { as: ticketAgent }), 400, 'parameter_invalid', 'x');
  });
});

describe('POST /internal/customers', () => {
  test('creates a customer with email null, status active, and emits customer.created', async () => {
    const r = await h.api('POST', '/internal/customers', { as: ticketAgent, body: { name: 'Walk-in Wanda' } });
    expect(r.status).toBe(201);
    const c = customerSnapshotSchema.parse(r.body.data);
    expect(c).toMatchObject({ name: 'Walk-in Wanda', email: null, status: 'active', sentiment: 'neutral', ticketCount: 0, rev: 0 });
    expect(c.id).toMatch(/^cus_/);
    const [e] = await h.eventsOf(r.requestId);
    expect(e).toMatchObject({ type: 'customer.created', data: { customer: c } });
    // it is a customer like any other on the public API
    const { rev: _rev, ...pub } = c;
    expect((await h.api('GET', `/teams/{team}/customers/${c.id}`)).body.data).toEqual(pub);
  });

  test('customers without an email do not collide; one may be given an email later', async () => {
    const a = (await h.api('POST', '/internal/customers', { as: ticketAgent, body: { name: 'Same' } })).body.data;
    const b = (await h.api('POST', '/internal/customers', { as: ticketAgent, body: { name: 'Same' } })).body.data;
    expect(a.id).not.toBe(b.id);
    const r = await h.api('PATCH', `/teams/{team}/customers/${a.id}`, { body: { email: 'found@example.com' } });
    expect(r.body.data.email).toBe('found@example.com');
    expect((await h.api('GET', '/internal/customers?email=found%40example.com', { as: ticketAgent })).body.data.id).toBe(a.id);
  });

  test.each([
    ['missing name', {}, 'parameter_missing', 'name'],
    ['blank name', { name: ' ' }, 'parameter_invalid', 'name'],
    ['name of 256', { name: 'n'.repeat(256) }, 'parameter_invalid', 'name'],
    ['email is not accepted', { name: 'A', email: 'a@b.co' }, 'parameter_invalid', 'email'],
  ])('refuses %s; nothing written', async (_name, body, code, param) => {
    const before = await h.svc.conn.collection('customers').countDocuments();
    const r = await h.api('POST', '/internal/customers', { as: ticketAgent, body });
    expectError(r, 400, code, param);
    expect(await h.svc.conn.collection('customers').countDocuments()).toBe(before);
    expect(await h.eventsOf(r.requestId)).toEqual([]);
  });
});

describe('internal auth', () => {
  const pk: Caller = { keyType: 'publishable', permissions: ['view_articles', 'view_community'] };
  test('a publishable key is refused: reads 403 publishable_key_forbidden, the create 403 publishable_key_write', async () => {
    const c = await customer();
    expectError(await h.api('GET', `/internal/customers/${c.id}`, { as: pk }), 403, 'publishable_key_forbidden');
    expectError(await h.api('GET', `/internal/customers?email=${encodeURIComponent(c.email)}`, { as: pk }), 403, 'publishable_key_forbidden');
    expectError(await h.api('POST', '/internal/customers', { as: pk, body: { name: 'x' } }), 403, 'publishable_key_write');
  });

  test('no token, or a forged one, is 401', async () => {
    expectError(await h.api('GET', '/internal/customers/cus_x', { as: null }), 401, 'internal_token_invalid');
    expectError(await h.api('POST', '/internal/customers', { token: 'not.a.jwt', body: { name: 'x' } }), 401, 'internal_token_invalid');
  });

  test('an internal token without any permission is enough', async () => {
    const r = await h.api('POST', '/internal/customers', { as: { keyType: 'internal', permissions: [] }, body: { name: 'By service' } });
    expect(r.status).toBe(201);
  });
});
