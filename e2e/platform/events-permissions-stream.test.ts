/**
 * Least privilege on the event stream and its stream tokens (docs/adr/0066): each role's key, over
 * the stream and over a stream token, receives exactly the events whose resource it may read through
 * the API; `?types=` and a token's types only narrow that; a scoped key reads within its scopes; a
 * role change ends the stream and the reconnection reads with the new role. Every event is made
 * through the API by the team's owner (and one by the spectator), as a client would.
 */
import { ROLES, type Role } from '@helpdesk/contracts';
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { eventually, expectError, expectOk } from './helpdesk-helpers';
import { receive, streamPath, StreamClient } from './stream-helpers';
import { READABLE_BY_ROLE } from './events-permissions-helpers';
import { addMember, WorkspaceEvents } from './workspace-helpers';

/** The event types this file makes, whatever the stream helpers collect by default. */
const TYPES = ['webhook.created', 'automation.created', 'ai_settings.updated', 'inbound_email.secret_rotated', 'api_key.created', 'saved_view.created'];

let tp: TestPlatform;
let team: TeamKeys;
let log: WorkspaceEvents;
/** A secret test key per role (the owner's is the team's own). */
const keys = {} as Record<Role, string>;
const path = (rest: string) => `/teams/${team.teamId}${rest}`;
const as = (key: string) => tp.api.withKey(key);
let aiSetting = false;

beforeAll(async () => {
  tp = await startTestPlatform({ webhooks: { allowLoopback: true } });
  log = await WorkspaceEvents.start(tp);
  team = await tp.createTeam('Least Privilege Co');
  keys.owner = team.sk_test;
  for (const role of ROLES.filter((r) => r !== 'owner')) {
    const m = await addMember(tp, log, team, role);
    keys[role] = m.key;
  }
}, 120_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

/** A marker every role reads (view_tickets): once a stream has it, it was offered everything logged before. */
async function marker(): Promise<string> {
  return expectOk(await as(team.sk_test).post(path('/tickets'), { title: `marker ${Date.now()}` }), 201).id;
}

const hasTicket = (c: StreamClient, id: string) => c.frames.some((f) => f.event === 'ticket.created' && f.data.data.ticket.id === id);

/** Flips the team's AI setting (manage_settings, the owner): one ai_settings.updated (use_ai to read). */
async function touchAiSettings(): Promise<void> {
  aiSetting = !aiSetting;
  expectOk(await as(team.sk_test).patch(path('/ai/settings'), { includeInternalNotes: aiSetting }), 200);
}

/** One event of each kind, through the API; the spectator's own key last. */
let round = 0;
async function makeEvents(): Promise<void> {
  round++;
  expectOk(await as(team.sk_test).post(path('/webhooks'), { name: 'CRM', url: `http://127.0.0.1:9/hook-${round}`, events: 'ticket.created' }), 201);
  expectOk(await as(team.sk_test).post(path('/automations'), { name: 'Tag VIPs', triggerEvent: 'ticket.created' }), 201);
  await touchAiSettings();
  expectOk(await as(team.sk_test).post(path('/inbound-email/secret')), 201);
  expectOk(await as(team.sk_test).post(path('/api-keys'), { name: 'owner script' }), 201);
  expectOk(await as(team.sk_test).post(path('/views'), { name: 'Mine', entityType: 'tickets', visibility: 'private' }), 201);
  expectOk(await as(keys.spectator).post(path('/api-keys'), { name: 'spectator script' }), 201);
}

/**
 * A stream's frames of TYPES, named as READABLE_BY_ROLE names them. The members' first keys (made in
 * beforeAll) may still arrive late through a broker: only the keys makeEvents names count.
 */
function seen(c: StreamClient): string[] {
  return c.frames
    .filter((f) => f.event !== 'ticket.created')
    .map((f) => {
      if (f.event === 'api_key.created') {
        const name = f.data.data.apiKey.name;
        return name === 'owner script' ? "api_key.created (owner's)" : name === 'spectator script' ? "api_key.created (spectator's)" : null;
      }
      if (f.event === 'saved_view.created') return `saved_view.created (${f.data.data.view.visibility})`;
      return f.event;
    })
    .filter((name): name is string => name !== null);
}

describe.each(['an API key', 'a stream token'])('each role over %s', (transport) => {
  it('receives exactly the events its role may read through the API', async () => {
    const open = async (role: Role) => {
      if (transport === 'an API key') return new StreamClient(`${tp.baseUrl}${streamPath(team.teamId)}`, keys[role]).collect(TYPES);
      const { token } = expectOk(await as(keys[role]).post(path('/events/stream-tokens'), {}), 201);
      return new StreamClient(`${tp.baseUrl}${streamPath(team.teamId)}?token=${token}`, null).collect(TYPES);
    };
    const streams = Object.fromEntries(await Promise.all(ROLES.map(async (r) => [r, await open(r)] as const))) as Record<Role, StreamClient>;
    await Promise.all(ROLES.map((r) => streams[r].opened));
    await makeEvents();
    // The owner reads everything: once it has all of it, a marker made now comes after all of it in the log.
    await receive(streams.owner, READABLE_BY_ROLE.owner.length, "the owner's stream");
    const id = await marker();
    for (const role of ROLES) {
      await eventually(`${role} stream has the marker`, () => hasTicket(streams[role], id), 20_000);
      expect([role, seen(streams[role]).sort()]).toEqual([role, [...READABLE_BY_ROLE[role]].sort()]);
      streams[role].close();
    }
  }, 60_000);
});

describe('filters only narrow (docs/adr/0066)', () => {
  it.each([
    ['spectator', 'webhook.*', /webhook\.\* event: they need one of the permissions view_webhooks\./],
    ['spectator', 'ticket.created,inbound_email.secret_rotated', /cannot receive inbound_email\.secret_rotated events: they need the permission manage_settings \(the permission of GET \/teams\/\{teamId\}\/inbound-email\)/],
    ['agent', 'automation.created', /manage_automations/],
    ['librarian', 'webhook.created', /view_webhooks/],
    ['manager', 'inbound_email.*', /manage_settings/],
    ['admin', 'billing.*', /manage_billing/],
  ] as [Role, string, RegExp][])('%s asking for %s: 403 insufficient_permissions (param types), on the stream and for a token', async (role, types, message) => {
    const res = await as(keys[role]).get(`${streamPath(team.teamId)}?types=${encodeURIComponent(types)}`);
    expectError(res, 403, 'authorization_error', 'insufficient_permissions', 'types');
    expect(res.body.error.message).toMatch(message);
    const minted = await as(keys[role]).post(path('/events/stream-tokens'), { types });
    expectError(minted, 403, 'authorization_error', 'insufficient_permissions', 'types');
    expect(minted.body.error.message).toMatch(message);
  });

  it("a token minted by a key that loses a type's permission later is refused at open, not widened", async () => {
    const m = await addMember(tp, log, team, 'manager');
    const { token } = expectOk(await as(m.key).post(path('/events/stream-tokens'), { types: 'automation.*' }), 201);
    expectOk(await as(team.sk_test).patch(path(`/members/${m.id}`), { role: 'agent' }), 200);
    await eventually('the new role applies (key cache, 5 s)', async () => (await as(m.key).get(path('/automations'))).status === 403, 10_000);
    expectError(await tp.api.get(`${streamPath(team.teamId)}?token=${token}`, { key: null }), 403, 'authorization_error', 'insufficient_permissions', 'types');
  });

  it('* and readable categories open; what is unreadable is left out, not refused', async () => {
    const c = new StreamClient(`${tp.baseUrl}${streamPath(team.teamId)}?types=${encodeURIComponent('*')}`, keys.spectator).collect(TYPES);
    const w = new StreamClient(`${tp.baseUrl}${streamPath(team.teamId)}?types=${encodeURIComponent('ticket.*,api_key.*')}`, keys.spectator).collect(TYPES);
    await Promise.all([c.opened, w.opened]);
    expectOk(await as(team.sk_test).post(path('/automations'), { name: 'Quiet', triggerEvent: 'ticket.created' }), 201);
    const id = await marker();
    await eventually('marker', () => hasTicket(c, id) && hasTicket(w, id), 20_000);
    expect(seen(c)).toEqual([]);
    expect(seen(w)).toEqual([]);
    c.close();
    w.close();
  });

  it('a scoped key reads within its scopes: a view_customers key gets customer events, not ticket events', async () => {
    const scoped = expectOk(await as(team.sk_test).post(path('/api-keys'), { name: 'customers only', scopes: ['view_customers'] }), 201).key;
    expectError(await as(scoped).get(`${streamPath(team.teamId)}?types=ticket.*`), 403, 'authorization_error', 'insufficient_permissions', 'types');
    const c = new StreamClient(`${tp.baseUrl}${streamPath(team.teamId)}`, scoped);
    await c.opened;
    const ticket = await marker();
    const customer = expectOk(await as(team.sk_test).post(path('/customers'), { name: 'Ada', email: `ada-${Date.now()}@example.com` }), 201);
    await eventually('the customer event', () => c.frames.some((f) => f.event === 'customer.created' && f.data.data.customer.id === customer.id), 20_000);
    // The ticket was made first; its event reached the log before the customer's, and was left out.
    expect(c.frames.some((f) => f.event === 'ticket.created' && f.data.data.ticket.id === ticket)).toBe(false);
    c.close();
  });
});

describe("a role change", () => {
  it('ends the stream; EventSource reconnects and reads with the new role', async () => {
    const m = await addMember(tp, log, team, 'agent');
    const c = new StreamClient(`${tp.baseUrl}${streamPath(team.teamId)}`, m.key).collect(TYPES);
    await c.opened;
    await touchAiSettings();
    await receive(c, 1, 'ai_settings.updated while an agent');
    expectOk(await as(team.sk_test).patch(path(`/members/${m.id}`), { role: 'spectator' }), 200);
    // Within the key cache's 5 s and the stream's 2 s check, the stream ends and EventSource opens it again.
    await eventually('the stream reopened', () => c.opens >= 2, 15_000);
    await touchAiSettings();
    const id = await marker();
    await eventually('marker', () => hasTicket(c, id), 20_000);
    expect(seen(c)).toEqual(['ai_settings.updated']);
    c.close();
  }, 40_000);
});
