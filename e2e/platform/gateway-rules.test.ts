import { startTestPlatform, type TestPlatform } from '../support/platform';
import { EventLog, expectError, expectOk, settle } from './helpdesk-helpers';

let tp: TestPlatform;
let log: EventLog;
let ticketId: string;
const path = () => `${tp.teamPath}/tickets`;

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await EventLog.start(tp);
  ticketId = expectOk(await tp.api.post(`${tp.teamPath}/tickets`, { title: 'Gateway fixture', messages: [{ sender: 'customer', content: 'x' }] }), 201).id;
  await tp.platform.ticketing.relay.drain();
  await log.waitFor(ticketId, 1);
}, 60_000);
afterAll(async () => tp?.stop(), 60_000);

async function total(key: string): Promise<number> {
  const res = await tp.api.get(path(), { key, query: { pageSize: 1 } });
  expectOk(res, 200);
  return res.body.meta.pagination.total;
}

/** A refused request stores nothing and publishes nothing: the fixture is unchanged and only the marker's event follows. */
async function expectNothingWritten(fn: () => Promise<void>): Promise<void> {
  await settle(tp, log); // every earlier event is in (with AMQP they arrive asynchronously)
  const before = expectOk(await tp.api.get(`${path()}/${ticketId}`), 200);
  const count = await total(tp.team.sk_test);
  const eventsBefore = log.events.length;
  await fn();
  await settle(tp, log);
  expect(expectOk(await tp.api.get(`${path()}/${ticketId}`), 200)).toEqual(before);
  expect(await total(tp.team.sk_test)).toBe(count + 1);
  expect(log.events.slice(eventsBefore).map((e) => [e.type, e.data.ticket.title])).toEqual([['ticket.created', 'marker']]);
}

describe('gateway rules on the ticket routes', () => {
  it('x-svc-request-id equals meta.requestId on every success, distinct per request', async () => {
    const a = await tp.api.get(path());
    const b = await tp.api.get(`${path()}/${ticketId}`);
    expectOk(a, 200);
    expectOk(b, 200);
    expect(a.body.meta.requestId).not.toBe(b.body.meta.requestId);
    const c = await tp.api.get(`${path()}/${ticketId}/messages`);
    expectOk(c, 200);
  });

  it.each(['PUT', 'POST', 'PATCH'])('405 method_not_allowed with Allow for %s on /tickets/{id} or /tickets', async (method) => {
    const target = method === 'PUT' ? `${path()}/${ticketId}` : method === 'POST' ? `${path()}/${ticketId}` : path();
    await expectNothingWritten(async () => {
      const res = await tp.api.request(method, target, { body: { title: 'nope' } });
      expectError(res, 405, 'invalid_request_error', 'method_not_allowed', undefined);
      const allow = res.headers.get('allow')!.split(/,\s*/).sort();
      expect(allow).toEqual(target === path() ? ['GET', 'POST'] : ['DELETE', 'GET', 'PATCH']);
    });
  });

  it('405 with Allow GET, POST on /tickets/{id}/messages for DELETE', async () => {
    const res = await tp.api.delete(`${path()}/${ticketId}/messages`);
    expectError(res, 405, 'invalid_request_error', 'method_not_allowed', undefined);
    expect(res.headers.get('allow')!.split(/,\s*/).sort()).toEqual(['GET', 'POST']);
  });

  it.each([
    ['GET', 'not-an-id'],
    ['PATCH', 'tkt_short'],
    ['DELETE', 'xyz_AAAAAAAAAAAAAAAAAAAAAAAA'],
    ['GET', 'not-an-id/messages'],
    ['POST', 'tkt_!!!!!!!!!!!!/messages'],
  ])('400 invalid_id_format for %s /tickets/%s', async (method, rest) => {
    const res = await tp.api.request(method, `${path()}/${rest}`, method === 'GET' || method === 'DELETE' ? {} : { body: { content: 'x', priority: 'high' } });
    expectError(res, 400, 'invalid_request_error', 'invalid_id_format', 'ticketId');
  });

  it('400 invalid_id_format param teamId for a team segment that is not a UUID', async () => {
    expectError(await tp.api.get('/teams/acme/tickets'), 400, 'invalid_request_error', 'invalid_id_format', 'teamId');
  });

  it('400 invalid_json for a broken body, writing nothing', async () => {
    await expectNothingWritten(async () => {
      expectError(await tp.api.request('POST', path(), { rawBody: '{"title": "broken"' }), 400, 'invalid_request_error', 'invalid_json', undefined);
      expectError(await tp.api.request('PATCH', `${path()}/${ticketId}`, { rawBody: '{priority:high}' }), 400, 'invalid_request_error', 'invalid_json', undefined);
      expectError(await tp.api.request('POST', `${path()}/${ticketId}/messages`, { rawBody: 'content=x' }), 400, 'invalid_request_error', 'invalid_json', undefined);
    });
  });

  it('400 invalid_json for a body that is JSON null, and for a broken body on DELETE (nothing deleted)', async () => {
    await expectNothingWritten(async () => {
      expectError(await tp.api.request('POST', path(), { rawBody: 'null' }), 400, 'invalid_request_error', 'invalid_json', undefined);
      expectError(await tp.api.request('DELETE', `${path()}/${ticketId}`, { rawBody: '{' }), 400, 'invalid_request_error', 'invalid_json', undefined);
      expectError(
        await tp.api.request('DELETE', `${path()}/${ticketId}`, { rawBody: '{}', headers: { 'content-type': 'text/plain' } }),
        400, 'invalid_request_error', 'invalid_json', undefined,
      );
    });
  });

  it('400 invalid_json for a wrong content type, writing nothing', async () => {
    await expectNothingWritten(async () => {
      const body = JSON.stringify({ title: 'typed wrong' });
      expectError(await tp.api.request('POST', path(), { rawBody: body, headers: { 'content-type': 'text/plain' } }), 400, 'invalid_request_error', 'invalid_json', undefined);
      expectError(await tp.api.request('POST', path(), { rawBody: 'title=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 400, 'invalid_request_error', 'invalid_json', undefined);
      expectError(await tp.api.request('PATCH', `${path()}/${ticketId}`, { rawBody: JSON.stringify({ priority: 'high' }), headers: { 'content-type': 'text/plain' } }), 400, 'invalid_request_error', 'invalid_json', undefined);
    });
  });

  it('403 team_access_denied for another team in the URL, on every ticket route, writing nothing', async () => {
    // the other team's own ticket, addressed with our key under their team
    const theirs = expectOk(await tp.api.post(`/teams/${tp.otherTeam.teamId}/tickets`, { title: 'Theirs' }, { key: tp.otherTeam.sk_test }), 201);
    await tp.platform.ticketing.relay.drain();
    await log.waitFor(theirs.id, 1);
    const other = `/teams/${tp.otherTeam.teamId}/tickets`;
    await expectNothingWritten(async () => {
      for (const [method, p, body] of [
        ['GET', other, undefined],
        ['POST', other, { title: 'x' }],
        ['GET', `${other}/${theirs.id}`, undefined],
        ['PATCH', `${other}/${theirs.id}`, { priority: 'urgent' }],
        ['DELETE', `${other}/${theirs.id}`, undefined],
        ['GET', `${other}/${theirs.id}/messages`, undefined],
        ['POST', `${other}/${theirs.id}/messages`, { content: 'x' }],
      ] as [string, string, unknown][]) {
        expectError(await tp.api.request(method, p, { body }), 403, 'authorization_error', 'team_access_denied', undefined);
      }
    });
    // their ticket under our team path is simply not found
    expectError(await tp.api.get(`${path()}/${theirs.id}`), 404, 'not_found_error', 'resource_not_found', undefined);
    expectError(await tp.api.patch(`${path()}/${theirs.id}`, { priority: 'urgent' }), 404, 'not_found_error', 'resource_not_found', undefined);
    expect(expectOk(await tp.api.get(`${other}/${theirs.id}`, { key: tp.otherTeam.sk_test }), 200)).toMatchObject({ priority: 'normal', title: 'Theirs' });
    await settle(tp, log);
    expect(log.forTicket(theirs.id)).toHaveLength(1);
  });

  it('test/live partitions: a ticket of one is 404 and absent in the other, both ways; events carry the partition (`mode`)', async () => {
    const live = tp.team.sk_live;
    const liveTicket = expectOk(await tp.api.post(path(), { title: 'Live one' }, { key: live }), 201);
    const testTicket = expectOk(await tp.api.post(path(), { title: 'Test one' }), 201);
    await tp.platform.ticketing.relay.drain();
    const [liveEvent] = await log.waitFor(liveTicket.id, 1);
    const [testEvent] = await log.waitFor(testTicket.id, 1);
    expect(liveEvent).toMatchObject({ type: 'ticket.created', mode: 'live', teamId: tp.team.teamId });
    expect(testEvent).toMatchObject({ type: 'ticket.created', mode: 'test', teamId: tp.team.teamId });

    for (const [key, foreign, own] of [[live, testTicket.id, liveTicket.id], [tp.team.sk_test, liveTicket.id, testTicket.id]]) {
      expectError(await tp.api.get(`${path()}/${foreign}`, { key }), 404, 'not_found_error', 'resource_not_found', undefined);
      expectError(await tp.api.get(`${path()}/${foreign}/messages`, { key }), 404, 'not_found_error', 'resource_not_found', undefined);
      expectError(await tp.api.patch(`${path()}/${foreign}`, { priority: 'urgent' }, { key }), 404, 'not_found_error', 'resource_not_found', undefined);
      expectError(await tp.api.post(`${path()}/${foreign}/messages`, { content: 'x' }, { key }), 404, 'not_found_error', 'resource_not_found', undefined);
      expectError(await tp.api.delete(`${path()}/${foreign}`, { key }), 404, 'not_found_error', 'resource_not_found', undefined);
      const ids = expectOk(await tp.api.get(path(), { key, query: { pageSize: 100 } }), 200).map((t: any) => t.id);
      expect(ids).toContain(own);
      expect(ids).not.toContain(foreign);
    }
    expect(expectOk(await tp.api.get(path(), { key: live }), 200).map((t: any) => t.title)).toEqual(['Live one']);
    // nothing changed on either
    expect(expectOk(await tp.api.get(`${path()}/${liveTicket.id}`, { key: live }), 200)).toMatchObject({ priority: 'normal', messageCount: 0 });
    expect(expectOk(await tp.api.get(`${path()}/${testTicket.id}`), 200)).toMatchObject({ priority: 'normal', messageCount: 0 });
    await settle(tp, log);
    expect(log.forTicket(liveTicket.id)).toHaveLength(1);
    expect(log.forTicket(testTicket.id)).toHaveLength(1);
  });

  it('publishable keys: publishable_key_forbidden on reads, publishable_key_write on writes, nothing written', async () => {
    await expectNothingWritten(async () => {
      for (const pk of [tp.team.pk_test, tp.team.pk_live]) {
        for (const p of [path(), `${path()}/${ticketId}`, `${path()}/${ticketId}/messages`]) {
          expectError(await tp.api.get(p, { key: pk }), 403, 'authorization_error', 'publishable_key_forbidden', undefined);
        }
        expectError(await tp.api.post(path(), { title: 'pk' }, { key: pk }), 403, 'authorization_error', 'publishable_key_write', undefined);
        expectError(await tp.api.patch(`${path()}/${ticketId}`, { priority: 'urgent' }, { key: pk }), 403, 'authorization_error', 'publishable_key_write', undefined);
        expectError(await tp.api.delete(`${path()}/${ticketId}`, { key: pk }), 403, 'authorization_error', 'publishable_key_write', undefined);
        expectError(await tp.api.post(`${path()}/${ticketId}/messages`, { content: 'pk' }, { key: pk }), 403, 'authorization_error', 'publishable_key_write', undefined);
      }
    });
  });

  it('401 without a key or with a bad one, nothing written', async () => {
    await expectNothingWritten(async () => {
      expectError(await tp.api.post(path(), { title: 'anon' }, { key: null }), 401, 'authentication_error', 'authentication_required', undefined);
      expectError(await tp.api.post(path(), { title: 'anon' }, { key: 'sk_test_' + 'a'.repeat(40) }), 401, 'authentication_error', 'invalid_api_key', undefined);
      expectError(await tp.api.post(path(), { title: 'anon' }, { key: 'zz_' + 'a'.repeat(40) }), 401, 'authentication_error', 'invalid_key_format', undefined);
    });
  });

  it('Idempotency-Key on POST /tickets: replay gives the same id and byte-identical body; one ticket; one ticket.created', async () => {
    const key = `idem-${Date.now()}`;
    const body = { title: 'Idempotent', priority: 'high', messages: [{ sender: 'customer', content: 'once' }] };
    const count = await total(tp.team.sk_test);
    const first = await tp.api.post(path(), body, { headers: { 'idempotency-key': key } });
    const t = expectOk(first, 201);
    const replay = await tp.api.post(path(), body, { headers: { 'idempotency-key': key } });
    expect(replay.status).toBe(201);
    expect(replay.text).toBe(first.text);
    expect(replay.body.data.id).toBe(t.id);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(replay.headers.get('x-svc-request-id')).toMatch(/^req_/);
    expect(replay.headers.get('x-svc-request-id')).not.toBe(first.headers.get('x-svc-request-id'));
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // same key, different body: 409, nothing created
    expectError(await tp.api.post(path(), { ...body, priority: 'low' }, { headers: { 'idempotency-key': key } }), 409, 'conflict_error', 'idempotency_key_in_use', 'Idempotency-Key');
    expect(await total(tp.team.sk_test)).toBe(count + 1);
    const list = expectOk(await tp.api.get(path(), { query: { search: 'Idempotent' } }), 200);
    expect(list.map((x: any) => x.id)).toEqual([t.id]);
    await settle(tp, log);
    expect(log.forTicket(t.id).map((e) => e.type)).toEqual(['ticket.created']);
    // the same key value in the live partition is independent
    const live = expectOk(await tp.api.post(path(), body, { key: tp.team.sk_live, headers: { 'idempotency-key': key } }), 201);
    expect(live.id).not.toBe(t.id);
    expectOk(await tp.api.delete(`${path()}/${live.id}`, { key: tp.team.sk_live }), 200);
  });

  it('a refused POST with an Idempotency-Key is not stored: the key can be reused with a valid request', async () => {
    const key = `idem-refused-${Date.now()}`;
    expectError(await tp.api.post(path(), { title: '' }, { headers: { 'idempotency-key': key } }), 400, 'invalid_request_error', 'parameter_invalid', 'title');
    // a service 400 is a response like any other: replayed byte for byte
    const again = await tp.api.post(path(), { title: '' }, { headers: { 'idempotency-key': key } });
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    // a gateway refusal (invalid_json) is not stored
    const k2 = `idem-gw-${Date.now()}`;
    expectError(await tp.api.request('POST', path(), { rawBody: '{', headers: { 'idempotency-key': k2 } }), 400, 'invalid_request_error', 'invalid_json', undefined);
    expectOk(await tp.api.post(path(), { title: 'after refusal' }, { headers: { 'idempotency-key': k2 } }), 201);
  });

  it('Idempotency-Key longer than 255 characters is 400 param Idempotency-Key', async () => {
    await expectNothingWritten(async () => {
      expectError(await tp.api.post(path(), { title: 'x' }, { headers: { 'idempotency-key': 'k'.repeat(256) } }), 400, 'invalid_request_error', 'parameter_invalid', 'Idempotency-Key');
    });
  });
});
