/** POST /import and GET /import through the gateway (docs/adr/0037): the spec's Import rules 1–7, merge strategies, vendor mappings. */
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { createCustomer, EventLog, expectError, expectOk, ISO } from './helpdesk-helpers';

let tp: TestPlatform;
let log: EventLog;
const I = () => `${tp.teamPath}/import`;
const tickets = async (key = tp.team.sk_test) => expectOk(await tp.api.get(`${tp.teamPath}/tickets?pageSize=100`, { key }), 200) as any[];
const customerByEmail = async (email: string, key = tp.team.sk_test) =>
  (expectOk(await tp.api.get(`${tp.teamPath}/customers?search=${encodeURIComponent(email)}`, { key }), 200) as any[]).find((c) => c.email?.toLowerCase() === email.toLowerCase());

beforeAll(async () => {
  tp = await startTestPlatform();
  log = await EventLog.start(tp);
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('POST /import: tickets', () => {
  it('rule 3: details, requester found or created in the key\'s partition, description as the first customer message; channel import', async () => {
    const known = await createCustomer(tp, 'Known Person', 'known@example.com');
    const res = await tp.api.post(I(), {
      resource: 'tickets',
      records: [
        { title: 'Printer jam', description: 'It jams on page 2', customer_email: 'known@example.com', priority: 'high', tags: ['printer'], status: 'pending', id: 'ext-1' },
        { subject: 'New person', description: 'Hello', customer_email: 'new.person@example.com', customer_name: 'New Person', metadata: { plan: 'pro' } },
        { data: { title: 'Wrapped' }, action: 'create' },
        { data: { title: 'Ignored' }, action: 'skip' },
      ],
    });
    const out = expectOk(res, 201);
    expect(out).toEqual({
      object: 'import_result', logId: expect.stringMatching(/^imp_/), entityType: 'ticket', success: true, total: 4, created: 3, updated: 0, skipped: 1, failed: 0,
      createdIds: [0, 1, 2].map((rowIndex) => ({ rowIndex, id: expect.stringMatching(/^tkt_/) })), errors: [], durationMs: expect.any(Number),
      warnings: ['Row 3: no description: the ticket has no first message.', 'Row 3: no requester email: the ticket has no customer.', 'Row 4: skipped (action skip).'],
    });
    const [first, second] = out.createdIds.map((c: any) => c.id);
    const t1 = expectOk(await tp.api.get(`${tp.teamPath}/tickets/${first}`), 200);
    expect(t1).toMatchObject({ title: 'Printer jam', priority: 'high', status: 'pending', tags: ['printer'], customerId: known.id, channel: 'import', metadata: { externalId: 'ext-1' }, messageCount: 1 });
    expect(t1.messages.map((m: any) => [m.sender, m.content, m.isInternal])).toEqual([['customer', 'It jams on page 2', false]]);
    const created = await customerByEmail('new.person@example.com');
    expect(created).toMatchObject({ name: 'New Person' });
    expect(expectOk(await tp.api.get(`${tp.teamPath}/tickets/${second}`), 200)).toMatchObject({ title: 'New person', customerId: created.id, metadata: { plan: 'pro' } });
    expect(await customerByEmail('new.person@example.com', tp.team.sk_live)).toBeUndefined();
    const events = await log.waitFor(first, 2);
    expect(events.map((e) => e.type)).toEqual(['ticket.created', 'ticket.updated']);
    expect(events[0].data.ticket.channel).toBe('import');
  });

  it('rule 5: a non-empty history array anywhere listed is a 400 before any record is written', async () => {
    const before = (await tickets()).length;
    const ok = { title: 'Would be written', customer_email: 'never@example.com', description: 'x' };
    const history: [Record<string, unknown>, string][] = [
      [{ ...ok, messages: [{ sender: 'agent', content: 'hi' }] }, 'records.1.messages'],
      [{ ...ok, _messages: [1] }, 'records.1._messages'],
      [{ ...ok, comments: [{ body: 'reply' }] }, 'records.1.comments'],
      [{ ...ok, audits: [{}] }, 'records.1.audits'],
      [{ ...ok, conversations: [{}] }, 'records.1.conversations'],
      [{ ...ok, threads: [{}] }, 'records.1.threads'],
      [{ ...ok, _embedded: { threads: [{ body: 'x' }] } }, 'records.1._embedded.threads'],
      [{ ...ok, conversation_parts: [{}] }, 'records.1.conversation_parts'],
      [{ ...ok, conversation_parts: { conversation_parts: [{}] } }, 'records.1.conversation_parts.conversation_parts'],
      [{ data: { ...ok, comments: [{}] }, action: 'update', existingId: 'tkt_whatever' }, 'records.1.data.comments'],
    ];
    for (const [bad, param] of history) {
      expectError(await tp.api.post(I(), { resource: 'tickets', records: [ok, bad] }), 400, 'invalid_request_error', 'parameter_invalid', param);
    }
    expect((await tickets()).length).toBe(before);
    expect(await customerByEmail('never@example.com')).toBeUndefined();
    expect((expectOk(await tp.api.get(I()), 200) as any[]).every((l) => l.totalRecords !== 2)).toBe(true);
  });

  it('rule 6: a truthy source.body with an array at conversation_parts is a 400 even when empty; rule 7: empty history is allowed', async () => {
    const intercom = { title: 'Hi', source: { body: '<p>Help</p>' } };
    for (const [parts, param] of [[[], 'conversation_parts'], [{ conversation_parts: [] }, 'conversation_parts.conversation_parts']] as const) {
      expectError(await tp.api.post(I(), { resource: 'tickets', records: [{ ...intercom, conversation_parts: parts }] }), 400, 'invalid_request_error', 'parameter_invalid', `records.0.${param}`);
    }
    const out = expectOk(
      await tp.api.post(I(), {
        resource: 'tickets',
        records: [{ title: 'Empty history', description: 'd', messages: [], comments: [], _embedded: { threads: [] }, conversation_parts: [], customFields: {}, metadata: { a: 1 } }],
      }),
      201,
    );
    expect(out).toMatchObject({ created: 1, failed: 0 });
  });

  it('maps Zendesk, Freshdesk, Intercom and Help Scout records (subject, description, requester, priority, status, tags)', async () => {
    const cases: [string, Record<string, unknown>, Record<string, unknown>, string, string][] = [
      ['zendesk', { id: 35436, subject: 'Help, my printer is on fire!', description: 'The fire is very colorful.', priority: 'high', status: 'solved', tags: ['enterprise', 'other_tag'], requester: { name: 'Zed Desk', email: 'zed@example.com' } },
        { title: 'Help, my printer is on fire!', priority: 'high', status: 'resolved', tags: ['enterprise', 'other_tag'], metadata: { externalId: '35436', importSource: 'zendesk' } }, 'The fire is very colorful.', 'zed@example.com'],
      ['freshdesk', { id: 20, subject: 'Support needed', description: '<div>Details <b>here</b></div>', description_text: 'Details here', email: 'fresh@example.com', name: 'Fresh Desk', priority: 4, status: 5, tags: ['vip'] },
        { title: 'Support needed', priority: 'urgent', status: 'closed', tags: ['vip'], metadata: { externalId: '20', importSource: 'freshdesk' } }, 'Details here', 'fresh@example.com'],
      ['intercom', { id: '1295', title: null, state: 'snoozed', priority: 'priority', source: { subject: '', body: '<p>Hi, my order never arrived</p>', author: { email: 'inter@example.com', name: 'Inter Com' } }, tags: { type: 'tag.list', tags: [{ id: '1', name: 'shipping' }] } },
        { title: 'Hi, my order never arrived', priority: 'high', status: 'pending', tags: ['shipping'], metadata: { externalId: '1295', importSource: 'intercom' } }, 'Hi, my order never arrived', 'inter@example.com'],
      ['helpscout', { id: 2391938111, number: 349, subject: 'Refund request', preview: 'I would like a refund', status: 'active', primaryCustomer: { first: 'Help', last: 'Scout', email: 'scout@example.com' }, tags: [{ id: 9, tag: 'billing' }], _embedded: { threads: [] } },
        { title: 'Refund request', priority: 'normal', status: 'open', tags: ['billing'], metadata: { externalId: '2391938111', importSource: 'helpscout' } }, 'I would like a refund', 'scout@example.com'],
    ];
    for (const [source, record, expected, description, email] of cases) {
      const out = expectOk(await tp.api.post(I(), { resource: 'tickets', source, records: [record] }), 201);
      expect({ source, created: out.created, errors: out.errors }).toEqual({ source, created: 1, errors: [] });
      const t = expectOk(await tp.api.get(`${tp.teamPath}/tickets/${out.createdIds[0].id}`), 200);
      expect(t).toMatchObject({ ...expected, channel: 'import' });
      expect(t.messages.map((m: any) => m.content)).toEqual([description]);
      expect((await customerByEmail(email)).id).toBe(t.customerId);
    }
  });

  it('merge strategies on the match key (metadata.externalId): skip (default), update, fail; a refused row fails alone', async () => {
    const rec = { title: 'Original', id: 'm-1', description: 'first' };
    const first = expectOk(await tp.api.post(I(), { resource: 'tickets', records: [rec] }), 201);
    const id = first.createdIds[0].id;
    const skipped = expectOk(await tp.api.post(I(), { resource: 'tickets', records: [{ ...rec, title: 'Changed' }] }), 201);
    expect(skipped).toMatchObject({ created: 0, skipped: 1, warnings: [`Row 1: skipped: the ticket with externalId 'm-1' already exists (${id}).`] });
    const updated = expectOk(await tp.api.post(I(), { resource: 'tickets', mergeStrategy: 'update', records: [{ ...rec, title: 'Changed', priority: 'urgent' }] }), 201);
    expect(updated).toMatchObject({ created: 0, updated: 1 });
    expect(expectOk(await tp.api.get(`${tp.teamPath}/tickets/${id}`), 200)).toMatchObject({ title: 'Changed', priority: 'urgent', messageCount: 1 });
    const failedImport = expectOk(await tp.api.post(I(), { resource: 'tickets', mergeStrategy: 'fail', records: [rec, { title: '  ' }, { title: 'Fine' }] }), 201);
    expect(failedImport).toMatchObject({ success: false, created: 1, failed: 2, createdIds: [{ rowIndex: 2 }] });
    expect(failedImport.errors.map((e: any) => [e.rowIndex, e.code])).toEqual([[0, 'resource_conflict'], [1, 'parameter_missing']]);
    expect(failedImport.errors[1].message).toMatch(/^Row 2: /);
  });
});

describe('POST /import: customers and articles', () => {
  it('rule 4: a customer without an email is a row error; email is the match key', async () => {
    await createCustomer(tp, 'Existing', 'existing@example.com');
    const out = expectOk(
      await tp.api.post(I(), {
        resource: 'customer',
        mergeStrategy: 'update',
        records: [{ name: 'No Email' }, { name: 'Existing Renamed', email: 'EXISTING@example.com' }, { firstName: 'Help', lastName: 'Scout', emails: [{ value: 'hs@example.com' }] }],
      }),
      201,
    );
    expect(out).toMatchObject({ entityType: 'customer', success: false, total: 3, created: 1, updated: 1, failed: 1 });
    expect(out.errors).toEqual([{ rowIndex: 0, code: 'parameter_missing', message: 'Row 1: Missing required parameter: email (a customer record needs an email).' }]);
    expect(await customerByEmail('existing@example.com')).toMatchObject({ name: 'Existing Renamed' });
    expect(await customerByEmail('hs@example.com')).toMatchObject({ name: 'Help Scout' });
  });

  it('articles: title is the match key; Zendesk draft and Help Scout name/text are mapped', async () => {
    const out = expectOk(await tp.api.post(I(), { resource: 'articles', records: [{ title: 'How to reset', body: 'Steps', draft: false }, { name: 'Billing FAQ', text: 'Pay', status: 'notpublished' }] }), 201);
    expect(out).toMatchObject({ entityType: 'article', created: 2 });
    const [a, b] = out.createdIds.map((c: any) => c.id);
    expect(expectOk(await tp.api.get(`${tp.teamPath}/articles/${a}`), 200)).toMatchObject({ title: 'How to reset', content: 'Steps', status: 'published' });
    expect(expectOk(await tp.api.get(`${tp.teamPath}/articles/${b}`), 200)).toMatchObject({ title: 'Billing FAQ', content: 'Pay', status: 'draft' });
    expect(expectOk(await tp.api.post(I(), { resource: 'articles', records: [{ title: 'how to RESET' }] }), 201)).toMatchObject({ skipped: 1 });
  });
});

describe('GET /import and bad inputs', () => {
  it('lists the logs newest first, in the key\'s partition only', async () => {
    const logs = expectOk(await tp.api.get(I()), 200) as any[];
    expect(logs.length).toBeGreaterThan(3);
    expect(logs[0]).toEqual({
      id: expect.stringMatching(/^imp_/), resource: 'articles', status: 'completed', source: 'helpdesk', mergeStrategy: 'skip', totalRecords: 1,
      created: 0, updated: 0, skipped: 1, failed: 0, createdAt: expect.stringMatching(ISO),
    });
    expect(expectOk(await tp.api.get(`${I()}?resource=customers`), 200).map((l: any) => l.resource)).toEqual(['customers']);
    expect(expectOk(await tp.api.get(I(), { key: tp.team.sk_live }), 200)).toEqual([]);
    expectError(await tp.api.get(`${I()}?resource=planets`), 400, 'invalid_request_error', 'parameter_invalid', 'resource');
  });

  it('refuses bad requests with nothing written', async () => {
    const before = (await tickets()).length;
    const bad: [unknown, string, string][] = [
      [{ records: [{ title: 'a' }] }, 'parameter_missing', 'resource'],
      [{ resource: 'tickets' }, 'parameter_missing', 'records'],
      [{ resource: 'planets', records: [{ title: 'a' }] }, 'parameter_invalid', 'resource'],
      [{ resource: 'tickets', records: 'all' }, 'parameter_invalid', 'records'],
      [{ resource: 'tickets', records: [] }, 'parameter_invalid', 'records'],
      [{ resource: 'tickets', records: Array.from({ length: 501 }, (_, i) => ({ title: `t${i}` })) }, 'parameter_invalid', 'records'],
      [{ resource: 'tickets', records: [{ title: 'a' }, 'not an object'] }, 'parameter_invalid', 'records.1'],
      [{ resource: 'tickets', records: [{ title: 'a' }, { data: 'x', action: 'create' }] }, 'parameter_invalid', 'records.1.data'],
      [{ resource: 'tickets', records: [{ title: 'a' }, { data: { title: 'b' }, action: 'explode' }] }, 'parameter_invalid', 'records.1.action'],
      [{ resource: 'tickets', records: [{ title: 'a' }, { title: 'b', action: 'skip' }] }, 'parameter_invalid', 'records.1'],
      [{ resource: 'tickets', records: [{ title: 'a' }], mergeStrategy: 'overwrite' }, 'parameter_invalid', 'mergeStrategy'],
      [{ resource: 'tickets', records: [{ title: 'a' }], source: 'kayako' }, 'parameter_invalid', 'source'],
      [{ resource: 'tickets', records: [{ title: 'a' }], dryRun: true }, 'parameter_invalid', 'dryRun'],
    ];
    for (const [body, code, param] of bad) expectError(await tp.api.post(I(), body), 400, 'invalid_request_error', code, param);
    expectError(await tp.api.post(I(), { resource: 'tickets', records: [{ title: 'a' }] }, { key: tp.team.pk_test }), 403, 'authorization_error', 'publishable_key_write');
    expectError(await tp.api.get(I(), { key: tp.team.pk_test }), 403, 'authorization_error', 'insufficient_permissions');
    expect((await tickets()).length).toBe(before);
  });
});
