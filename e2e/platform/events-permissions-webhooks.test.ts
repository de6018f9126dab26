/**
 * Least privilege on webhooks (docs/adr/0066): a webhook reads as the key that chose its url or
 * events; its event filter only narrows that; a filter the key can never read is refused (403); a
 * member's new role narrows the webhooks made with their keys (never widens them); trigger-test and
 * redelivery follow the same rule. Each role: owner and admin make webhooks themselves; the other
 * roles cannot (no manage_webhooks), so an admin makes one and is then given that role.
 */
import { ROLE_PERMISSIONS, ROLES, type Role } from '@helpdesk/contracts';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { eventually, expectError, expectOk } from './helpdesk-helpers';
import { newTeam, Receiver, type Team } from './webhooks-helpers';
import { READABLE_BY_ROLE } from './events-permissions-helpers';
import { addMember, WorkspaceEvents } from './workspace-helpers';

let tp: TestPlatform;
let log: WorkspaceEvents;
let rx: Receiver;

beforeAll(async () => {
  tp = await startTestPlatform({ webhooks: { allowLoopback: true, retryScheduleMs: [100, 100], jitter: 0, pollIntervalMs: 50 } });
  log = await WorkspaceEvents.start(tp);
  rx = await Receiver.start();
}, 60_000);
afterAll(async () => {
  await tp?.stop();
  await rx?.close();
}, 60_000);

const as = (key: string) => tp.api.withKey(key);
const W = (t: Team) => `${t.path}/webhooks`;
const bodyOf = (r: { body: string }) => JSON.parse(r.body);
const deliveredTo = (path: string) => rx.forPath(path).map(bodyOf);

/** Every delivery row of a webhook, as the owner reads its log. */
async function deliveryLog(t: Team, webhookId: string): Promise<{ id: string; eventId: string; eventType: string }[]> {
  return expectOk(await t.api.get(`${W(t)}/${webhookId}/deliveries`, { query: { pageSize: '100' } }), 200);
}

/** An admin of `t` with a webhook of `events` to `path`, then given `role` (its webhook narrowed to it). */
async function webhookOfRole(t: Team, role: Role, path: string, events = '*'): Promise<{ id: string; memberId: string; key: string }> {
  if (role === 'owner') {
    const w = expectOk(await t.api.post(W(t), { name: role, url: rx.url(path), events }), 201);
    return { id: w.id, memberId: expectOk(await t.api.get('/auth/whoami'), 200).memberId, key: t.keys.sk_test };
  }
  const m = await addMember(tp, log, t.keys, 'admin');
  const w = expectOk(await as(m.key).post(W(t), { name: role, url: rx.url(path), events }), 201);
  if (role !== 'admin') await changeRole(t, m.id, role);
  return { id: w.id, memberId: m.id, key: m.key };
}

async function changeRole(t: Team, memberId: string, role: Role) {
  expectOk(await t.api.patch(`${t.path}/members/${memberId}`, { role }), 200);
  await narrowed(memberId, ROLE_PERMISSIONS[role]);
}

/** Waits until the webhooks service has narrowed the member's webhooks (it does so on member.role_changed and member.removed). */
async function narrowed(memberId: string, allowed: readonly string[]) {
  const hooks = tp.platform.webhooks.conn.collection('webhooks');
  await eventually(`the webhooks of ${memberId} narrowed`, async () => {
    const docs = await hooks.find({ 'readAs.memberId': memberId }).toArray();
    return docs.every((d) => (d.readAs.permissions as string[]).every((p) => allowed.includes(p))) || null;
  }, 10_000);
}

describe.each(ROLES)('a webhook of the %s role', (role) => {
  it("receives exactly the events its role may read through the API, whatever `*` asks for", async () => {
    const t = await newTeam(tp);
    const owner = await webhookOfRole(t, 'owner', `/${t.keys.teamId}/owner`);
    const spectator = role === 'spectator' ? await webhookOfRole(t, role, `/${t.keys.teamId}/${role}`) : null;
    const mine = spectator ?? (role === 'owner' ? owner : await webhookOfRole(t, role, `/${t.keys.teamId}/${role}`));
    // A spectator of its own, whose key's event the others see; for the spectator role it is the webhook's member.
    const spectatorKey = spectator?.key ?? (await addMember(tp, log, t.keys, 'spectator')).key;
    const spectatorId = expectOk(await as(spectatorKey).get('/auth/whoami'), 200).memberId;

    const requests: string[] = [];
    const call = async (p: Promise<any>, status = 201) => {
      const res = await p;
      expectOk(res, status);
      requests.push(res.body.meta.requestId);
    };
    await call(t.api.post(W(t), { name: 'other', url: rx.url(`/${t.keys.teamId}/other`), events: 'ticket.created' }));
    await call(t.api.post(`${t.path}/automations`, { name: 'Tag VIPs', triggerEvent: 'ticket.closed' }));
    await call(t.api.patch(`${t.path}/ai/settings`, { includeInternalNotes: true }), 200);
    await call(t.api.post(`${t.path}/inbound-email/secret`));
    await call(t.api.post(`${t.path}/api-keys`, { name: 'owner script' }));
    await call(t.api.post(`${t.path}/views`, { name: 'Mine', entityType: 'tickets', visibility: 'private' }));
    await call(as(spectatorKey).post(`${t.path}/api-keys`, { name: 'spectator script' }));
    await call(t.api.post(`${t.path}/tickets`, { title: 'marker' }));

    // The owner's webhook reads everything: once it has every event, every webhook's rows for them are
    // written (one transaction per event creates them all), and the delivery logs say who got what.
    const made = await eventually('the owner webhook has every event', () => {
      const got = rx.forPath(`/${t.keys.teamId}/owner`).filter((r) => requests.includes(String(r.headers['x-svc-request-id'])));
      return got.length >= READABLE_BY_ROLE.owner.length + 1 ? got.map(bodyOf) : null;
    }, 20_000);
    const named = new Map<string, string>(
      made.map((e) => {
        if (e.type === 'api_key.created') return [e.id, e.data.apiKey.memberId === spectatorId ? "api_key.created (spectator's)" : "api_key.created (owner's)"];
        if (e.type === 'saved_view.created') return [e.id, `saved_view.created (${e.data.view.visibility})`];
        return [e.id, e.type];
      }),
    );
    const got = (await deliveryLog(t, mine.id)).filter((d) => named.has(d.eventId)).map((d) => named.get(d.eventId)!);
    expect(got.filter((n) => n !== 'ticket.created').sort()).toEqual([...READABLE_BY_ROLE[role]].sort());
    // Every role reads tickets.
    expect(got).toContain('ticket.created');
    // The receiver got exactly what the log holds.
    await eventually('the deliveries arrived', () => deliveredTo(`/${t.keys.teamId}/${role}`).filter((e) => named.has(e.id)).length === got.length || null, 10_000);
  }, 90_000);
});

describe('a filter only narrows', () => {
  it('refuses, at create and when url or events change, patterns the key can never read (403, param events), writing nothing', async () => {
    const t = await newTeam(tp);
    const onlyHooks = expectOk(await t.api.post(`${t.path}/api-keys`, { name: 'hooks', scopes: ['manage_webhooks'] }), 201).key;
    const tickets = expectOk(await t.api.post(`${t.path}/api-keys`, { name: 'tickets', scopes: ['manage_webhooks', 'view_tickets'] }), 201).key;
    const refused = async (key: string, body: object, message: RegExp, webhookId?: string) => {
      const res = webhookId ? await as(key).patch(`${W(t)}/${webhookId}`, body) : await as(key).post(W(t), body);
      expectError(res, 403, 'authorization_error', 'insufficient_permissions', 'events');
      expect(res.body.error.message).toMatch(message);
    };
    const url = rx.url(`/${t.keys.teamId}/narrow`);
    await refused(onlyHooks, { name: 'x', url, events: 'ticket.created' }, /cannot receive ticket\.created events: they need the permission view_tickets/);
    await refused(tickets, { name: 'x', url, events: 'ticket.*,customer.created' }, /customer\.created.*view_customers/);
    await refused(tickets, { name: 'x', url, events: ['webhook.*'] }, /any webhook\.\* event.*view_webhooks/);
    const admin = await addMember(tp, log, t.keys, 'admin');
    await refused(admin.key, { name: 'x', url, events: 'billing.*' }, /manage_billing/);
    expect(expectOk(await t.api.get(W(t)), 200)).toEqual([]);

    // The owner's webhook: renaming it takes nothing; choosing its url takes the chooser's reach, and is refused beyond it.
    const hook = expectOk(await t.api.post(W(t), { name: 'all tickets', url, events: 'ticket.created' }), 201);
    expectOk(await as(onlyHooks).patch(`${W(t)}/${hook.id}`, { name: 'renamed' }), 200);
    await refused(onlyHooks, { url: rx.url(`/${t.keys.teamId}/elsewhere`) }, /view_tickets/, hook.id);
    await refused(onlyHooks, { events: 'customer.*' }, /view_customers/, hook.id);
    expect(expectOk(await t.api.get(`${W(t)}/${hook.id}`), 200)).toMatchObject({ name: 'renamed', url, events: ['ticket.created'] });
  });

  it('* for a key with only manage_webhooks delivers what every key may read, and nothing else', async () => {
    const t = await newTeam(tp);
    const onlyHooks = expectOk(await t.api.post(`${t.path}/api-keys`, { name: 'hooks', scopes: ['manage_webhooks'] }), 201).key;
    const path = `/${t.keys.teamId}/everything`;
    const hook = expectOk(await as(onlyHooks).post(W(t), { name: 'everything?', url: rx.url(path), events: '*' }), 201);
    // The owner's marker: its rows for an event are written with every other webhook's, in one transaction.
    const marker = `/${t.keys.teamId}/marker`;
    expectOk(await t.api.post(W(t), { name: 'marker', url: rx.url(marker), events: 'ticket.created' }), 201);
    const ticket = expectOk(await t.api.post(`${t.path}/tickets`, { title: 'secret ticket' }), 201);
    await eventually('the marker has the ticket', () => deliveredTo(marker).some((e) => e.data.ticket.id === ticket.id) || null, 10_000);
    expectOk(await t.api.patch(`${t.path}/settings`, { defaultLanguage: 'de' }), 200);
    await eventually('settings.updated', () => deliveredTo(path).some((e) => e.type === 'settings.updated') || null, 10_000);
    // What every key may read, and the key's own member's API keys' events (GET /api-keys shows it those
    // too; with a broker the scoped key's own api_key.created can arrive after the webhook exists). Never the ticket.
    const isReadable = (type: string) => type === 'settings.updated' || type === 'api_key.created';
    expect(deliveredTo(path).map((e) => e.type).filter((type) => !isReadable(type))).toEqual([]);
    expect((await deliveryLog(t, hook.id)).map((d) => d.eventType).filter((type) => !isReadable(type))).toEqual([]);
  });

  it("saving a webhook's url with a narrower key makes it read as that key", async () => {
    const t = await newTeam(tp);
    const tickets = expectOk(await t.api.post(`${t.path}/api-keys`, { name: 'tickets', scopes: ['manage_webhooks', 'view_tickets'] }), 201).key;
    const hook = expectOk(await t.api.post(W(t), { name: 'all', url: rx.url(`/${t.keys.teamId}/before`), events: '*' }), 201);
    const path = `/${t.keys.teamId}/after`;
    expectOk(await as(tickets).patch(`${W(t)}/${hook.id}`, { url: rx.url(path) }), 200);
    const marker = `/${t.keys.teamId}/marker`;
    expectOk(await t.api.post(W(t), { name: 'marker', url: rx.url(marker), events: 'customer.created' }), 201);
    const customer = expectOk(await t.api.post(`${t.path}/customers`, { name: 'Ada', email: 'ada@example.com' }), 201);
    const ticket = expectOk(await t.api.post(`${t.path}/tickets`, { title: 'after the move' }), 201);
    await eventually('the ticket', () => deliveredTo(path).some((e) => e.type === 'ticket.created' && e.data.ticket.id === ticket.id) || null, 10_000);
    await eventually('the marker has the customer', () => deliveredTo(marker).some((e) => e.data.customer.id === customer.id) || null, 10_000);
    expect((await deliveryLog(t, hook.id)).map((d) => d.eventType)).not.toContain('customer.created');
    expect(deliveredTo(path).some((e) => e.type === 'customer.created')).toBe(false);
  });
});

describe("a member's role", () => {
  it('narrows their webhooks: deliveries stop, redelivery is 409, and a later promotion does not widen them', async () => {
    const t = await newTeam(tp);
    const path = `/${t.keys.teamId}/automations`;
    const admin = await addMember(tp, log, t.keys, 'admin');
    const hook = expectOk(await as(admin.key).post(W(t), { name: 'rules', url: rx.url(path), events: 'automation.*' }), 201);
    const first = expectOk(await t.api.post(`${t.path}/automations`, { name: 'One', triggerEvent: 'ticket.created' }), 201);
    await eventually('automation.created', () => deliveredTo(path).some((e) => e.data.automation?.id === first.id) || null, 10_000);
    const [delivery] = await deliveryLog(t, hook.id);
    expectOk(await t.api.post(`${W(t)}/${hook.id}/deliveries/${delivery.id}/redeliver`), 202);

    await changeRole(t, admin.id, 'agent');
    await eventually('redelivery refused once narrowed', async () => (await t.api.post(`${W(t)}/${hook.id}/deliveries/${delivery.id}/redeliver`)).status === 409 || null, 10_000);
    const refused = await t.api.post(`${W(t)}/${hook.id}/deliveries/${delivery.id}/redeliver`);
    expectError(refused, 409, 'conflict_error', 'resource_conflict');
    expect(refused.body.error.message).toMatch(/may no longer read automation\.created events/);

    // Back to admin: the webhook stays narrow until a key that may saves its events again.
    await changeRole(t, admin.id, 'admin');
    const marker = expectOk(await t.api.post(W(t), { name: 'marker', url: rx.url(`/${t.keys.teamId}/marker`), events: 'automation.*' }), 201);
    const second = expectOk(await t.api.post(`${t.path}/automations`, { name: 'Two', triggerEvent: 'ticket.created' }), 201);
    await eventually('the marker has it', () => deliveredTo(`/${t.keys.teamId}/marker`).some((e) => e.data.automation?.id === second.id) || null, 10_000);
    expect((await deliveryLog(t, hook.id)).map((d) => d.eventType)).toEqual(['automation.created']);
    expect(deliveredTo(path).some((e) => e.data.automation?.id === second.id)).toBe(false);
    // Saved again with the owner's key: it reads as the owner from now on.
    expectOk(await t.api.patch(`${W(t)}/${hook.id}`, { events: 'automation.created' }), 200);
    const third = expectOk(await t.api.post(`${t.path}/automations`, { name: 'Four', triggerEvent: 'ticket.created' }), 201);
    await eventually('automation.created again', () => deliveredTo(path).some((e) => e.data.automation?.id === third.id) || null, 10_000);
    expectOk(await t.api.delete(`${W(t)}/${marker.id}`), 200);
  }, 60_000);

  it("a removed member's webhooks deliver nothing", async () => {
    const t = await newTeam(tp);
    const path = `/${t.keys.teamId}/gone`;
    const admin = await addMember(tp, log, t.keys, 'admin');
    const hook = expectOk(await as(admin.key).post(W(t), { name: 'all', url: rx.url(path), events: 'ticket.created' }), 201);
    expectOk(await t.api.delete(`${t.path}/members/${admin.id}`), 200);
    await narrowed(admin.id, []);
    const marker = expectOk(await t.api.post(W(t), { name: 'marker', url: rx.url(`/${t.keys.teamId}/marker`), events: 'ticket.created' }), 201);
    const ticket = expectOk(await t.api.post(`${t.path}/tickets`, { title: 'after' }), 201);
    await eventually('the marker webhook got it', () => deliveredTo(`/${t.keys.teamId}/marker`).some((e) => e.data.ticket.id === ticket.id) || null, 10_000);
    expect(await deliveryLog(t, hook.id)).toEqual([]);
    expect(deliveredTo(path)).toEqual([]);
    expect(marker.id).not.toBe(hook.id);
  });
});

describe('trigger-test', () => {
  it('sends the test event only to webhooks that may read its type', async () => {
    const t = await newTeam(tp);
    const owner = await webhookOfRole(t, 'owner', `/${t.keys.teamId}/t-owner`, 'ticket.created');
    const spectator = await webhookOfRole(t, 'spectator', `/${t.keys.teamId}/t-spectator`, 'ticket.created');
    const tested = async (event: string) =>
      (expectOk(await t.api.post(`${W(t)}/trigger-test`, { event }), 200).deliveries as { webhookId: string }[]).map((d) => d.webhookId).sort();
    expect(await tested('ticket.created')).toEqual([owner.id, spectator.id].sort());
    expect(await tested('automation.created')).toEqual([owner.id]);
  });
});
