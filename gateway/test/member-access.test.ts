import type { Server } from 'node:http';
import type { Express } from 'express';
import { closeServer, createServiceApp, listen } from '@helpdesk/kit';
import { ROLE_PERMISSIONS, type InternalClaims, type KeyAccess, type Role } from '@helpdesk/contracts';
import { startGateway, type RunningGateway } from '../src/index';
import { logger, startBackend, tokens } from './helpers';

/**
 * The key resolver asks the workspace service for a key's member and team (docs/adr/0012). A stand-in
 * workspace, built on kit's service app (so the gateway's tokens are really verified), answers from
 * `members` and `teamName`, which each test changes.
 */
const members = new Map<string, Role>();
let teamName: string | null = null;
let down = false;
const asked: InternalClaims[] = [];

function startWorkspaceStandIn(): Promise<Server> {
  const routes = (app: Express) => {
    app.get('/internal/access', (req, res) => {
      asked.push(res.locals.ctx as InternalClaims);
      if (down) return void res.status(503).json({ success: false, error: { code: 'service_unavailable' } });
      const memberId = req.query.memberId as string | undefined;
      const role = memberId ? members.get(memberId) : undefined;
      const data: KeyAccess = {
        team: teamName ? { name: teamName, slug: 'renamed' } : null,
        member: role ? { id: memberId!, role, permissions: [...ROLE_PERMISSIONS[role]] } : null,
      };
      res.json({ success: true, data, meta: { requestId: 'req_x', timestamp: new Date().toISOString() } });
    });
    app.post('/internal/owner', (req, res) => {
      members.set('mem_owner0000000000000000000', 'owner');
      const member = {
        id: 'mem_owner0000000000000000000', userId: '00000000-0000-4000-8000-000000000000', name: req.body.name, email: req.body.email,
        avatarUrl: null, role: 'owner', roleDisplayName: 'Guild Master', permissions: [...ROLE_PERMISSIONS.owner], level: 1, xp: 0,
        joinedAt: new Date().toISOString(),
      };
      res.status(201).json({ success: true, data: member, meta: { requestId: 'req_x', timestamp: new Date().toISOString() } });
    });
  };
  return listen(createServiceApp({ name: 'workspace', logger, tokens, routes }), 0, '127.0.0.1');
}

let workspace: Server;
let backend: Awaited<ReturnType<typeof startBackend>>;
let gw: RunningGateway;
let teamId: string;

beforeAll(async () => {
  workspace = await startWorkspaceStandIn();
  backend = await startBackend();
  const port = (workspace.address() as { port: number }).port;
  gw = await startGateway({
    port: 0, mongoUrl: 'memory:', tokens, logger, keyCacheTtlMs: 0,
    services: { ticketing: backend.url, workspace: `http://127.0.0.1:${port}` },
  });
  teamId = (await gw.admin.createTeam({ name: 'Access Co', owner: { name: 'Olga', email: 'olga@example.com' } })).id;
});
afterAll(async () => {
  await gw?.stop();
  await backend?.stop();
  if (workspace) await closeServer(workspace);
});
beforeEach(() => {
  down = false;
  teamName = null;
});

const call = (key: string, path = `/teams/${teamId}/tickets`, method = 'GET') =>
  fetch(`${gw.url}${path}`, { method, headers: { authorization: `Bearer ${key}`, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) }, body: method === 'POST' ? '{}' : undefined });
const keyOf = async (memberId: string | null, scopes?: ('view_tickets' | 'manage_tickets')[]) =>
  (await gw.admin.createKey({ teamId, type: 'secret', mode: 'test', memberId, scopes })).key;

it('a new team gets its owner, and keys default to it', async () => {
  const team = await gw.admin.getTeam(teamId);
  expect(team?.ownerMemberId).toBe('mem_owner0000000000000000000');
  const { record } = await gw.admin.createKey({ teamId, type: 'secret', mode: 'test' });
  expect(record.memberId).toBe('mem_owner0000000000000000000');
});

it("carries the member role's permissions, narrowed by the key's scopes, in the internal token", async () => {
  members.set('mem_spectator00000000000000', 'spectator');
  const spectator = await keyOf('mem_spectator00000000000000');
  expect((await call(spectator)).status).toBe(200);
  const ctx = backend.seen.at(-1)!.ctx;
  expect(ctx.permissions).toEqual([...ROLE_PERMISSIONS.spectator]);
  expect(ctx.memberId).toBe('mem_spectator00000000000000');
  const refused = await call(spectator, `/teams/${teamId}/tickets`, 'POST');
  expect(refused.status).toBe(403);
  expect(((await refused.json()) as any).error.code).toBe('insufficient_permissions');
  members.set('mem_spectator00000000000000', 'agent');
  expect((await call(spectator, `/teams/${teamId}/tickets`, 'POST')).status).toBe(201);
  // scopes narrow further
  const narrow = await keyOf('mem_spectator00000000000000', ['view_tickets']);
  expect((await call(narrow, `/teams/${teamId}/tickets`, 'POST')).status).toBe(403);
  // the look-up itself carries no permissions
  expect(asked.at(-1)).toMatchObject({ teamId, keyType: 'internal', permissions: [] });
});

it("a removed member's key is 401 invalid_api_key; a key without a member keeps its type's permissions", async () => {
  members.set('mem_leaver000000000000000000', 'admin');
  const leaver = await keyOf('mem_leaver000000000000000000');
  expect((await call(leaver)).status).toBe(200);
  members.delete('mem_leaver000000000000000000');
  const res = await call(leaver);
  expect(res.status).toBe(401);
  expect(((await res.json()) as any).error.code).toBe('invalid_api_key');
  const operator = await keyOf(null);
  expect((await call(operator, `/teams/${teamId}/tickets`, 'POST')).status).toBe(201);
});

it("whoami shows the team's name from the workspace service", async () => {
  const key = await keyOf(null);
  teamName = 'Access Co Renamed';
  const who = (await (await fetch(`${gw.url}/auth/whoami`, { headers: { authorization: `Bearer ${key}` } })).json()) as any;
  expect(who.data).toMatchObject({ teamName: 'Access Co Renamed', teamSlug: 'renamed' });
});

it('fails closed with 503 service_unavailable when the workspace service cannot answer', async () => {
  const key = await keyOf('mem_owner0000000000000000000');
  down = true;
  const res = await call(key);
  expect(res.status).toBe(503);
  expect(((await res.json()) as any).error.code).toBe('service_unavailable');
});

it('ensureOwner gives a team made without a workspace service its owner, who then holds its memberless keys', async () => {
  const port = (workspace.address() as { port: number }).port;
  const before = await startGateway({ port: 0, mongoUrl: 'memory:legacy', tokens, logger, services: { ticketing: backend.url } });
  const after = await startGateway({ port: 0, mongoUrl: 'memory:legacy', tokens, logger, keyCacheTtlMs: 0, services: { ticketing: backend.url, workspace: `http://127.0.0.1:${port}` } });
  try {
    const old = await before.admin.createTeam({ name: 'Old Co' });
    expect(old.ownerMemberId).toBeUndefined();
    const { record } = await before.admin.createKey({ teamId: old.id, type: 'secret', mode: 'test' });
    expect(record.memberId).toBeNull();
    const owned = await after.admin.ensureOwner(old.id, { name: 'Olga', email: 'olga@example.com' });
    expect(owned?.ownerMemberId).toBe('mem_owner0000000000000000000');
    expect((await after.admin.listKeys(old.id)).map((k) => k.memberId)).toEqual(['mem_owner0000000000000000000']);
    // a second call changes nothing; an unknown team is null
    expect((await after.admin.ensureOwner(old.id, { name: 'X', email: 'x@example.com' }))?.ownerMemberId).toBe('mem_owner0000000000000000000');
    expect(await after.admin.ensureOwner('00000000-0000-4000-8000-000000000000', { name: 'X', email: 'x@example.com' })).toBeNull();
  } finally {
    await before.stop();
    await after.stop();
  }
});
