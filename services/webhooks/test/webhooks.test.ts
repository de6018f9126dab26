/** Webhooks over HTTP on the embedded MongoDB and the memory bus: storage, events, limits, scope. */
import { matchesPattern, patternProblem, patternsKey, webhookSnapshotSchema } from '@helpdesk/contracts';
import { expectError, startHarness, TEAM_A, TEAM_B, type Caller, type Harness } from './helpers';
import { testSecrets } from '@helpdesk/testing';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ maxWebhooksPerTeam: 5 });
}, 30_000);
afterAll(async () => h?.stop());

const W = '/teams/{team}/webhooks';
const PUBLIC_KEYS = ['createdAt', 'events', 'id', 'isActive', 'name', 'updatedAt', 'url'];
const raw = () => h.svc.conn.collection('webhooks');

describe('event patterns', () => {
  test('known types, <category>.* of a known category and * are valid; nothing else', () => {
    for (const p of ['ticket.created', 'ticket.message_added', 'webhook.disabled', 'customer_group.member_added', 'ticket.*', 'customer_status.*', 'webhook.*', '*']) {
      expect(patternProblem(p)).toBeNull();
    }
    for (const p of ['ticket.exploded', 'tickets.*', 'ticket.#', '#', 'ticket.**', '*.created', 'ticket', '', 'TICKET.CREATED', 'spaceship.*']) {
      expect(patternProblem(p)).not.toBeNull();
    }
  });

  test('matching: * everything, ticket.* every ticket event and nothing of customer_*, exact types exactly', () => {
    expect(matchesPattern('*', 'customer_group.deleted')).toBe(true);
    expect(matchesPattern('ticket.*', 'ticket.message_added')).toBe(true);
    expect(matchesPattern('customer.*', 'customer_group.created')).toBe(false);
    expect(matchesPattern('customer.*', 'customer.updated')).toBe(true);
    expect(matchesPattern('ticket.created', 'ticket.closed')).toBe(false);
  });

  test('the uniqueness key ignores order and repetition', () => {
    expect(patternsKey(['ticket.updated', 'ticket.created', 'ticket.updated'])).toBe(patternsKey(['ticket.created', 'ticket.updated']));
  });
});

describe('create', () => {
  test('stores the secret, returns it once, and never again', async () => {
    const r = await h.api('POST', W, { body: { name: 'CRM sync', url: 'https://example.com/hooks', events: 'ticket.created, ticket.closed' } });
    expect(r.status).toBe(201);
    const w = r.body.data;
    expect(Object.keys(w).sort()).toEqual([...PUBLIC_KEYS, 'secret'].sort());
    expect(w).toMatchObject({ name: 'CRM sync', url: 'https://example.com/hooks', events: ['ticket.created', 'ticket.closed'], isActive: true });
    expect(w.id).toMatch(/^whk_[A-Za-z0-9]{24}$/);
    expect(w.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const stored = await raw().findOne({ _id: w.id } as any);
    // Kept sealed with SECRETS_KEY, bound to this webhook (docs/adr/0067).
    expect(stored?.secret).toMatch(/^enc:v1:/);
    expect(testSecrets.open(stored!.secret, `webhooks.secret:${w.id}`)).toBe(w.secret);
    const got = await h.api('GET', `${W}/${w.id}`);
    expect(Object.keys(got.body.data).sort()).toEqual(PUBLIC_KEYS);
    const list = await h.api('GET', W);
    expect(JSON.stringify(list.body)).not.toContain(w.secret);
    const patched = await h.api('PATCH', `${W}/${w.id}`, { body: { name: 'renamed' } });
    expect(patched.body.data.secret).toBeUndefined();

    const events = await h.eventsOf(r.requestId);
    expect(events.map((e) => e.type)).toEqual(['webhook.created']);
    expect(webhookSnapshotSchema.strict().parse(events[0].data.webhook)).toEqual(got.body.data);
    expect(JSON.stringify(h.events)).not.toContain(w.secret);
    await h.api('DELETE', `${W}/${w.id}`);
  });

  test('normalises the URL with the URL parser and accepts events as an array', async () => {
    const w = await h.createWebhook({ name: 'n', url: 'HTTPS://Example.COM:443', events: ['ticket.*', 'ticket.*', 'customer.created'] });
    expect(w).toMatchObject({ url: 'https://example.com/', events: ['ticket.*', 'customer.created'] });
    await h.api('DELETE', `${W}/${w.id}`);
  });

  test('the limit per team and partition holds under concurrent creates, and a delete frees a place', async () => {
    const team: Caller = { teamId: crypto.randomUUID() };
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => h.api('POST', W, { as: team, body: { name: `w${i}`, url: `https://example.com/${i}`, events: '*' } })),
    );
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(5);
    for (const r of results.filter((x) => x.status !== 201)) {
      expectError(r, 409, 'resource_conflict');
      expect(r.body.error.message).toContain('5 webhooks');
    }
    expect(await raw().countDocuments({ teamId: team.teamId } as any)).toBe(5);
    // The other partition has its own five.
    expect((await h.api('POST', W, { as: { ...team, mode: 'live' }, body: { name: 'l', url: 'https://example.com/l', events: '*' } })).status).toBe(201);
    await h.api('DELETE', `${W}/${created[0].body.data.id}`, { as: team });
    expect((await h.api('POST', W, { as: team, body: { name: 'again', url: 'https://example.com/again', events: '*' } })).status).toBe(201);
    const refused = await h.api('POST', W, { as: team, body: { name: 'over', url: 'https://example.com/over', events: '*' } });
    expectError(refused, 409, 'resource_conflict');
    expect(await h.eventsOf(refused.requestId)).toEqual([]);
  });

  test('the same url with the same events is a 409 even when created concurrently', async () => {
    const team: Caller = { teamId: crypto.randomUUID() };
    const body = { name: 'x', url: 'https://example.com/dup', events: 'ticket.created,ticket.updated' };
    const results = await Promise.all([0, 1, 2].map(() => h.api('POST', W, { as: team, body })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect(await raw().countDocuments({ teamId: team.teamId } as any)).toBe(1);
    // The conflicting creates did not take a place in the limit.
    const quota = await h.svc.conn.collection('webhook_quotas').findOne({ _id: `${team.teamId}:test` } as any);
    expect(quota?.count).toBe(1);
  });
});

describe('update and delete', () => {
  test('PATCH changes only what differs and says what changed in webhook.updated', async () => {
    const w = await h.createWebhook({ name: 'p', url: 'https://example.com/p', events: 'ticket.created' });
    const r = await h.api('PATCH', `${W}/${w.id}`, { body: { name: 'p', url: 'https://example.com/q', events: 'ticket.*', isActive: false } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name: 'p', url: 'https://example.com/q', events: ['ticket.*'], isActive: false });
    expect(new Date(r.body.data.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(w.updatedAt).getTime());
    const [e] = await h.eventsOf(r.requestId);
    expect(e.type).toBe('webhook.updated');
    expect(e.data.changes).toEqual(['url', 'events', 'isActive']);
    expect(e.data.previous).toEqual({ url: 'https://example.com/p', events: ['ticket.created'], isActive: true });
    const same = await h.api('PATCH', `${W}/${w.id}`, { body: { isActive: false } });
    expect(same.body.data.updatedAt).toBe(r.body.data.updatedAt);
    expect(await h.eventsOf(same.requestId)).toEqual([]);
  });

  test('concurrent PATCHes of one webhook all land (optimistic concurrency retried)', async () => {
    const w = await h.createWebhook({ name: 'c', url: 'https://example.com/c', events: '*' });
    const rs = await Promise.all(Array.from({ length: 6 }, (_, i) => h.api('PATCH', `${W}/${w.id}`, { body: { name: `name ${i}` } })));
    expect(rs.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const stored = await raw().findOne({ _id: w.id } as any);
    expect(stored?.rev).toBe(6);
  });

  test('DELETE answers {id, deleted: true}, emits webhook.deleted, and the webhook is gone', async () => {
    const w = await h.createWebhook({ name: 'd', url: 'https://example.com/d', events: '*' });
    const r = await h.api('DELETE', `${W}/${w.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: w.id, deleted: true });
    const [e] = await h.eventsOf(r.requestId);
    expect(e).toMatchObject({ type: 'webhook.deleted', data: { webhookId: w.id, webhook: { id: w.id, name: 'd' } } });
    expectError(await h.api('GET', `${W}/${w.id}`), 404, 'resource_not_found');
    expectError(await h.api('DELETE', `${W}/${w.id}`), 404, 'resource_not_found');
  });
});

describe('scope', () => {
  test('another team or partition sees a 404 and nothing in lists', async () => {
    const w = await h.createWebhook({ name: 's', url: 'https://example.com/s', events: '*' });
    for (const as of [{ teamId: TEAM_B }, { mode: 'live' as const }]) {
      expectError(await h.api('GET', `${W}/${w.id}`, { as }), 404, 'resource_not_found');
      expectError(await h.api('PATCH', `${W}/${w.id}`, { as, body: { name: 'x' } }), 404, 'resource_not_found');
      expectError(await h.api('DELETE', `${W}/${w.id}`, { as }), 404, 'resource_not_found');
      expectError(await h.api('GET', `${W}/${w.id}/deliveries`, { as }), 404, 'resource_not_found');
      const list = await h.api('GET', `${W}?pageSize=100`, { as });
      expect(list.body.data.map((x: any) => x.id)).not.toContain(w.id);
    }
    expect((await h.api('GET', `${W}/${w.id}`, { as: { teamId: TEAM_A } })).status).toBe(200);
  });
});
