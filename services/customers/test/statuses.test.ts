/** Customer statuses: the four built-ins and the team's own, on the embedded MongoDB and the memory bus. */
import { expectError, startHarness, TEAM_B, type Caller, type Harness } from './helpers';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 30_000);
afterAll(async () => {
  await h?.stop();
});

const S = '/teams/{team}/customer-statuses';
const BUILT_INS = [
  { key: 'active', label: 'Active', color: '#22c55e', position: 0, isProtected: true },
  { key: 'inactive', label: 'Inactive', color: '#9ca3af', position: 1, isProtected: true },
  { key: 'churned', label: 'Churned', color: '#ef4444', position: 2, isProtected: true },
  { key: 'pending', label: 'Pending', color: '#f59e0b', position: 3, isProtected: true },
];

describe('customer statuses', () => {
  const as: Caller = { teamId: '9c1c1f0e-0000-4000-8000-000000000001' };

  test('a new team lists the four built-ins, in the envelope', async () => {
    const r = await h.api('GET', S, { as });
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.body.data).toEqual(BUILT_INS);
  });

  test('create: defaults (color #6b7280, position after the last), then listed after the built-ins by position', async () => {
    const a = await h.api('POST', S, { as, body: { key: 'vip', label: 'VIP' } });
    expect(a.status).toBe(201);
    expect(a.body.data).toEqual({ key: 'vip', label: 'VIP', color: '#6b7280', position: 4, isProtected: false });
    const [e] = await h.eventsOf(a.requestId);
    expect(e).toMatchObject({ type: 'customer_status.created', data: { status: a.body.data } });
    const b = await h.api('POST', S, { as, body: { key: 'on_hold', label: ' On hold ', color: '#ABCDEF' } });
    expect(b.body.data).toEqual({ key: 'on_hold', label: 'On hold', color: '#abcdef', position: 5, isProtected: false });
    const c = await h.api('POST', S, { as, body: { key: 'trial-2', label: 'Trial', position: 4 } });
    expect(c.body.data.position).toBe(4);
    const keys = (await h.api('GET', S, { as })).body.data.map((s: any) => s.key);
    expect(keys).toEqual(['active', 'inactive', 'churned', 'pending', 'trial-2', 'vip', 'on_hold']);
    // another team and the other partition do not see them
    expect((await h.api('GET', S, { as: { ...as, mode: 'live' } })).body.data).toEqual(BUILT_INS);
    expect((await h.api('GET', S, { as: { teamId: TEAM_B } })).body.data.map((s: any) => s.key)).not.toContain('vip');
  });

  test('a built-in key or a taken key is 409 param key', async () => {
    expectError(await h.api('POST', S, { as, body: { key: 'active', label: 'Mine' } }), 409, 'resource_conflict', 'key');
    await h.api('POST', S, { as, body: { key: 'taken', label: 'Taken' } });
    const r = await h.api('POST', S, { as, body: { key: 'taken', label: 'Again' } });
    expectError(r, 409, 'resource_conflict', 'key');
    expect(await h.eventsOf(r.requestId)).toEqual([]);
  });

  const bad: [string, unknown, string, string][] = [
    ['missing key', { label: 'x' }, 'parameter_missing', 'key'],
    ['missing label', { key: 'x' }, 'parameter_missing', 'label'],
    ['key with capitals', { key: 'Gold', label: 'x' }, 'parameter_invalid', 'key'],
    ['key starting with a dash', { key: '-x', label: 'x' }, 'parameter_invalid', 'key'],
    ['key of 65', { key: 'k'.repeat(65), label: 'x' }, 'parameter_invalid', 'key'],
    ['blank label', { key: 'x', label: '  ' }, 'parameter_invalid', 'label'],
    ['label of 51', { key: 'x', label: 'l'.repeat(51) }, 'parameter_invalid', 'label'],
    ['color not hex', { key: 'x', label: 'x', color: 'red' }, 'parameter_invalid', 'color'],
    ['position among the built-ins', { key: 'x', label: 'x', position: 3 }, 'parameter_invalid', 'position'],
    ['position not an integer', { key: 'x', label: 'x', position: 4.5 }, 'parameter_invalid', 'position'],
    ['position too large', { key: 'x', label: 'x', position: 10_001 }, 'parameter_invalid', 'position'],
    ['isProtected is not accepted', { key: 'x', label: 'x', isProtected: true }, 'parameter_invalid', 'isProtected'],
  ];
  test.each(bad)('create refuses %s', async (_name, body, code, param) => {
    const r = await h.api('POST', S, { as, body });
    expectError(r, 400, code, param);
    expect(await h.eventsOf(r.requestId)).toEqual([]);
  });

  test('PATCH changes label, color, position and emits customer_status.updated; the same values emit nothing', async () => {
    await h.api('POST', S, { as, body: { key: 'gold', label: 'Gold' } });
    const r = await h.api('PATCH', `${S}/gold`, { as, body: { label: 'Gold tier', color: '#FFD700', position: 9 } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ key: 'gold', label: 'Gold tier', color: '#ffd700', position: 9, isProtected: false });
    const [e] = await h.eventsOf(r.requestId);
    expect(e.data).toMatchObject({ changes: ['label', 'color', 'position'], previous: { label: 'Gold', color: '#6b7280' } });
    const same = await h.api('PATCH', `${S}/gold`, { as, body: { label: 'Gold tier' } });
    expect(same.status).toBe(200);
    expect(await h.eventsOf(same.requestId)).toEqual([]);
    expectError(await h.api('PATCH', `${S}/gold`, { as, body: { key: 'platinum' } }), 400, 'parameter_invalid', 'key');
    expectError(await h.api('PATCH', `${S}/gold`, { as, body: { color: '#fff' } }), 400, 'parameter_invalid', 'color');
    expectError(await h.api('PATCH', `${S}/nope`, { as, body: { label: 'x' } }), 404, 'resource_not_found');
  });

  test.each(BUILT_INS.map((s) => [s.key]))('built-in %s cannot be changed or deleted (409)', async (key) => {
    expectError(await h.api('PATCH', `${S}/${key}`, { as, body: { label: 'x' } }), 409, 'resource_conflict');
    expectError(await h.api('DELETE', `${S}/${key}`, { as }), 409, 'resource_conflict');
  });

  test('DELETE: refused with 409 while a customer has it; allowed once none does', async () => {
    await h.api('POST', S, { as, body: { key: 'doomed', label: 'Doomed' } });
    const c = (await h.api('POST', '/teams/{team}/customers', { as, body: { name: 'Holder', email: 'holder@example.com' } })).body.data;
    expect((await h.api('PATCH', `/teams/{team}/customers/${c.id}`, { as, body: { status: 'doomed' } })).status).toBe(200);
    const refused = await h.api('DELETE', `${S}/doomed`, { as });
    expectError(refused, 409, 'resource_conflict');
    expect(refused.body.error.message).toMatch(/used by 1 customer/);
    expect(await h.eventsOf(refused.requestId)).toEqual([]);
    expect((await h.api('GET', S, { as })).body.data.map((s: any) => s.key)).toContain('doomed');

    await h.api('PATCH', `/teams/{team}/customers/${c.id}`, { as, body: { status: 'inactive' } });
    const r = await h.api('DELETE', `${S}/doomed`, { as });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ key: 'doomed', deleted: true });
    const [e] = await h.eventsOf(r.requestId);
    expect(e).toMatchObject({ type: 'customer_status.deleted', data: { key: 'doomed', status: { key: 'doomed', label: 'Doomed' } } });
    expectError(await h.api('DELETE', `${S}/doomed`, { as }), 404, 'resource_not_found');
    expectError(await h.api('PATCH', `/teams/{team}/customers/${c.id}`, { as, body: { status: 'doomed' } }), 400, 'parameter_invalid', 'status');
    expectError(await h.api('GET', '/teams/{team}/customers?status=doomed', { as }), 400, 'parameter_invalid', 'status');
  });

  test('a status being assigned and deleted at the same time: never deleted while a customer has it', async () => {
    for (let round = 0; round < 5; round++) {
      const key = `racing-${round}`;
      await h.api('POST', S, { as, body: { key, label: 'Racing' } });
      const c = (await h.api('POST', '/teams/{team}/customers', { as, body: { name: 'R', email: `race${round}@example.com` } })).body.data;
      const [assign, remove] = await Promise.all([
        h.api('PATCH', `/teams/{team}/customers/${c.id}`, { as, body: { status: key } }),
        h.api('DELETE', `${S}/${key}`, { as }),
      ]);
      const status = (await h.api('GET', `/teams/{team}/customers/${c.id}`, { as })).body.data.status;
      const listed = (await h.api('GET', S, { as })).body.data.some((s: any) => s.key === key);
      if (assign.status === 200) {
        expect(remove.status).toBe(409);
        expect([status, listed]).toEqual([key, true]);
      } else {
        expectError(assign, 400, 'parameter_invalid', 'status');
        expect(remove.status).toBe(200);
        expect([status, listed]).toEqual(['active', false]);
      }
    }
  });

  test('the list takes no query parameters', async () => {
    expectError(await h.api('GET', `${S}?page=2`, { as }), 400, 'parameter_invalid', 'page');
  });
});
