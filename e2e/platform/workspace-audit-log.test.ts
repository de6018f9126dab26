import type { EventEnvelope } from '@helpdesk/contracts';
import { eventually } from '@helpdesk/testing';
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { expectError, expectOk, ISO } from './helpdesk-helpers';
import { addMember, WorkspaceEvents, type TestMember } from './workspace-helpers';

let tp: TestPlatform;
let team: TeamKeys;
let agent: TestMember;
const path = (p: string) => `/teams/${team.teamId}${p}`;
const get = (p: string, key = team.sk_test, query?: Record<string, string>) => tp.api.get(path(p), { key, query });
const AUD_ID = /^aud_[A-Za-z0-9]{24}$/;

beforeAll(async () => {
  tp = await startTestPlatform();
  team = await tp.createTeam('Audit Corp');
  agent = await addMember(tp, await WorkspaceEvents.start(tp), team, 'agent');
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

/** Every entry of the key's partition, oldest first. */
async function allEntries(key = team.sk_test): Promise<any[]> {
  const res = expectOk(await get('/audit-log', key, { pageSize: '100' }), 200);
  return [...res].reverse();
}

describe('audit log', () => {
  let ticketId: string;
  let customerId: string;
  let webhookId: string;

  it('records the events of every service in order: a ticket created, updated and closed, a customer deleted, a webhook created', async () => {
    const t = expectOk(await tp.api.post(path('/tickets'), { title: 'Printer on fire' }, { key: team.sk_test }), 201);
    ticketId = t.id;
    expectOk(await tp.api.patch(path(`/tickets/${t.id}`), { priority: 'high' }, { key: team.sk_test }), 200);
    expectOk(await tp.api.patch(path(`/tickets/${t.id}`), { status: 'closed' }, { key: team.sk_test }), 200);
    const c = expectOk(await tp.api.post(path('/customers'), { name: 'Gone Soon', email: 'gone@example.com' }, { key: team.sk_test }), 201);
    customerId = c.id;
    expectOk(await tp.api.delete(path(`/customers/${c.id}`), { key: team.sk_test }), 200);
    const w = expectOk(await tp.api.post(path('/webhooks'), { name: 'Audit', url: 'https://audit.example.com/hook', events: '*' }, { key: team.sk_test }), 201);
    webhookId = w.id;

    const wanted = ['ticket.created', 'ticket.updated', 'ticket.updated', 'ticket.closed', 'customer.created', 'customer.deleted', 'webhook.created'];
    let entries: any[] = [];
    await eventually('the entries are in', async () => {
      entries = (await allEntries()).filter((e) => wanted.includes(e.action));
      return entries.length >= wanted.length;
    }, 15_000);
    // Events of different services reach the log in their own order; each service's are in order.
    const ofTicket = entries.filter((e) => e.resourceId === ticketId).map((e) => e.action);
    expect(ofTicket).toEqual(['ticket.created', 'ticket.updated', 'ticket.updated', 'ticket.closed']);
    expect(entries.filter((e) => e.resourceId === customerId).map((e) => e.action)).toEqual(['customer.created', 'customer.deleted']);
    expect(entries.find((e) => e.action === 'webhook.created')).toMatchObject({ resourceType: 'webhook', resourceId: webhookId });

    const created = entries[0];
    expect(created).toEqual({
      id: expect.stringMatching(AUD_ID), object: 'audit_log_entry', action: 'ticket.created', resourceType: 'ticket', resourceId: ticketId,
      actorType: expect.any(String), actorId: expect.any(String), actorSessionId: null, actorName: expect.any(String), details: expect.objectContaining({ ticket: expect.objectContaining({ id: ticketId, title: 'Printer on fire' }) }),
      createdAt: expect.stringMatching(ISO), sequence: expect.any(Number), previousHash: expect.any(String), hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(created.actorName.length).toBeGreaterThan(0);
    // The chain: every entry carries the hash of the one before it.
    const all = await allEntries();
    all.forEach((e, i) => {
      expect(e.sequence).toBe(i + 1);
      expect(e.previousHash).toBe(i === 0 ? null : all[i - 1].hash);
    });
  });

  it('filters by action, resourceType, actorId and dates; refuses bad dates and unknown parameters', async () => {
    const byAction = expectOk(await get('/audit-log', team.sk_test, { action: 'ticket.closed' }), 200);
    expect(byAction.map((e: any) => e.resourceId)).toEqual([ticketId]);
    const byType = expectOk(await get('/audit-log', team.sk_test, { resourceType: 'customer' }), 200);
    expect(byType.map((e: any) => e.action)).toEqual(['customer.deleted', 'customer.created']);
    const actorId = byAction[0].actorId;
    const byActor = expectOk(await get('/audit-log', team.sk_test, { actorId, action: 'webhook.created' }), 200);
    expect(byActor.map((e: any) => e.resourceId)).toEqual([webhookId]);
    expect(expectOk(await get('/audit-log', team.sk_test, { actorId: 'mem_nobodynobodynobodynobody' }), 200)).toEqual([]);

    const at = byAction[0].createdAt;
    expect(expectOk(await get('/audit-log', team.sk_test, { action: 'ticket.closed', startDate: at, endDate: at }), 200)).toHaveLength(1);
    expect(expectOk(await get('/audit-log', team.sk_test, { action: 'ticket.closed', endDate: '2000-01-01' }), 200)).toEqual([]);
    expect(expectOk(await get('/audit-log', team.sk_test, { action: 'ticket.closed', startDate: '2000-01-01', endDate: at.slice(0, 10) }), 200)).toHaveLength(1);
    const page = await get('/audit-log', team.sk_test, { pageSize: '2', page: '2' });
    expect(expectOk(page, 200)).toHaveLength(2);
    expect(page.body.meta.pagination).toMatchObject({ page: 2, pageSize: 2 });

    expectError(await get('/audit-log', team.sk_test, { startDate: 'yesterday' }), 400, 'invalid_request_error', 'parameter_invalid', 'startDate');
    expectError(await get('/audit-log', team.sk_test, { endDate: '2026-02-30' }), 400, 'invalid_request_error', 'parameter_invalid', 'endDate');
    expectError(await get('/audit-log', team.sk_test, { startDate: '2026-02-02', endDate: '2026-02-01' }), 400, 'invalid_request_error', 'parameter_invalid', 'endDate');
    expectError(await get('/audit-log', team.sk_test, { pageSize: '101' }), 400, 'invalid_request_error', 'parameter_invalid', 'pageSize');
    expectError(await get('/audit-log', team.sk_test, { actor: 'x' }), 400, 'invalid_request_error', 'parameter_invalid', 'actor');
  });

  it('needs view_audit_log and a secret key of the team; each partition has its own log; entries cannot be changed or deleted', async () => {
    expectError(await get('/audit-log', agent.key), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await get('/audit-log/verify', agent.key), 403, 'authorization_error', 'insufficient_permissions');
    expectError(await get('/audit-log', team.pk_test), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await get('/audit-log', tp.otherTeam.sk_test), 403, 'authorization_error', 'team_access_denied');
    const live = await allEntries(team.sk_live);
    expect(live.some((e) => e.resourceId === ticketId)).toBe(false);
    const [one] = await allEntries();
    expect((await tp.api.patch(path(`/audit-log/${one.id}`), { action: 'x' }, { key: team.sk_test })).status).toBe(404);
    expect((await tp.api.delete(path(`/audit-log/${one.id}`), { key: team.sk_test })).status).toBe(404);
    expect((await allEntries())[0]).toEqual(one);
  });

  it('verify finds the chain intact, and finds an entry edited directly in MongoDB', async () => {
    const ok = expectOk(await get('/audit-log/verify'), 200);
    const count = (await allEntries()).length;
    expect(ok).toEqual({ object: 'audit_log_verification', valid: true, checkedCount: expect.any(Number), firstBrokenEntryId: null, reason: null });
    expect(ok.checkedCount).toBeGreaterThanOrEqual(count);

    const target = (await allEntries()).find((e) => e.action === 'customer.deleted');
    const collection = tp.platform.workspace.conn.collection('audit_log');
    await collection.updateOne({ _id: target.id } as any, { $set: { actorName: 'Someone else' } });
    const broken = expectOk(await get('/audit-log/verify'), 200);
    expect(broken).toEqual({ object: 'audit_log_verification', valid: false, checkedCount: target.sequence, firstBrokenEntryId: target.id, reason: 'hash_mismatch' });
    // The live partition's chain is separate and intact.
    expect(expectOk(await get('/audit-log/verify', team.sk_live), 200)).toMatchObject({ valid: true });
  });

  it('writes one entry per event even when the event is delivered again', async () => {
    const seen: EventEnvelope[] = [];
    await tp.observe('ticketing', ['ticket.created'], async (e) => {
      seen.push(e);
    });
    const t = expectOk(await tp.api.post(path('/tickets'), { title: 'Once' }, { key: team.sk_test }), 201);
    await eventually('the event observed', async () => seen.some((e) => (e.data as any).ticket.id === t.id), 10_000);
    const event = seen.find((e) => (e.data as any).ticket.id === t.id)!;
    // The same envelope again, as a broker redelivery or a relay re-publishing after a crash would.
    await tp.platform.buses.ticketing!.publish([event]);
    const marker = expectOk(await tp.api.post(path('/tickets'), { title: 'Marker' }, { key: team.sk_test }), 201);
    await eventually('the marker recorded', async () => (await allEntries()).some((e) => e.resourceId === marker.id), 10_000);
    expect((await allEntries()).filter((e) => e.resourceId === t.id).map((e) => e.action)).toEqual(['ticket.created']);
    expect(expectOk(await get('/audit-log/verify', team.sk_live), 200)).toMatchObject({ valid: true });
  });
});
