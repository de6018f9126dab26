/**
 * Everything the service refuses before it touches the database: internal auth, publishable keys,
 * permissions, body and query validation. Runs on the app with no database behind it.
 */
import { call, expectError, startDetached, TEAM_A } from './helpers';

let base: string;
let stop: () => Promise<void>;
beforeAll(async () => {
  ({ url: base, stop } = await startDetached());
});
afterAll(() => stop());

const T = '/teams/{team}/tickets';
const ONE = `${T}/tkt_abcdefgh12345678`;
const MSGS = `${ONE}/messages`;

describe('internal auth', () => {
  const routes: [string, string][] = [
    ['GET', T], ['POST', T], ['GET', ONE], ['PATCH', ONE], ['DELETE', ONE], ['GET', MSGS], ['POST', MSGS],
  ];
  test.each(routes)('%s %s without a token is 401', async (method, path) => {
    const r = await call(base, method, path, { as: null, body: method === 'POST' || method === 'PATCH' ? {} : undefined });
    expectError(r, 401, 'internal_token_invalid');
  });
  test.each(routes)('%s %s with a forged token is 401', async (method, path) => {
    const r = await call(base, method, path, { token: 'eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl' });
    expectError(r, 401, 'internal_token_invalid');
  });
  test('a token signed with another secret is 401', async () => {
    const { InternalTokens } = await import('@helpdesk/kit');
    const other = new InternalTokens('another-secret-another-secret-another-1');
    const token = await other.sign({
      teamId: TEAM_A, mode: 'test', keyId: 'k', keyType: 'secret', memberId: null, permissions: ['view_tickets'], requestId: 'req_x',
    });
    expectError(await call(base, 'GET', T, { token }), 401, 'internal_token_invalid');
  });
});

describe('publishable keys and permissions', () => {
  const pk = { keyType: 'publishable' as const, permissions: ['view_articles', 'view_community'] as any };
  test.each([['GET', T], ['GET', ONE], ['GET', MSGS]])('%s %s with a publishable key is 403 publishable_key_forbidden', async (m, p) => {
    expectError(await call(base, m, p, { as: pk }), 403, 'publishable_key_forbidden');
  });
  test.each([['POST', T], ['PATCH', ONE], ['DELETE', ONE], ['POST', MSGS]])('%s %s with a publishable key is 403 publishable_key_write', async (m, p) => {
    expectError(await call(base, m, p, { as: pk, body: { title: 'x', content: 'x' } }), 403, 'publishable_key_write');
  });
  test('a publishable key is refused even if its token carried ticket permissions', async () => {
    const as = { keyType: 'publishable' as const, permissions: ['view_tickets', 'manage_tickets'] as any };
    expectError(await call(base, 'GET', T, { as }), 403, 'publishable_key_forbidden');
    expectError(await call(base, 'POST', T, { as, body: { title: 'x' } }), 403, 'publishable_key_write');
  });
  test.each([['GET', T], ['GET', ONE], ['GET', MSGS]])('%s %s without view_tickets is 403', async (m, p) => {
    expectError(await call(base, m, p, { as: { permissions: ['manage_tickets'] } }), 403, 'insufficient_permissions');
  });
  test.each([['POST', T], ['PATCH', ONE], ['DELETE', ONE], ['POST', MSGS]])('%s %s without manage_tickets is 403', async (m, p) => {
    expectError(await call(base, m, p, { as: { permissions: ['view_tickets'] }, body: {} }), 403, 'insufficient_permissions');
  });
});

describe('POST /tickets body validation', () => {
  const post = (body: unknown) => call(base, 'POST', T, { body });
  test('title missing', async () => expectError(await post({ priority: 'high' }), 400, 'parameter_missing', 'title'));
  test('title wrong type', async () => expectError(await post({ title: 42 }), 400, 'parameter_invalid', 'title'));
  test('title empty', async () => expectError(await post({ title: '' }), 400, 'parameter_invalid', 'title'));
  test('title blank', async () => expectError(await post({ title: '   ' }), 400, 'parameter_invalid', 'title'));
  test('title of 256 characters', async () => expectError(await post({ title: 'x'.repeat(256) }), 400, 'parameter_invalid', 'title'));
  test('unknown field names the field', async () => expectError(await post({ title: 'ok', colour: 'red' }), 400, 'parameter_invalid', 'colour'));
  test('assignedTo is not a create field', async () => expectError(await post({ title: 'ok', assignedTo: 'mem_x' }), 400, 'parameter_invalid', 'assignedTo'));
  test('status is not a create field', async () => expectError(await post({ title: 'ok', status: 'open' }), 400, 'parameter_invalid', 'status'));
  test('bad priority', async () => expectError(await post({ title: 'ok', priority: 'asap' }), 400, 'parameter_invalid', 'priority'));
  test('customerId without cus_ prefix', async () => expectError(await post({ title: 'ok', customerId: 'usr_12345678' }), 400, 'parameter_invalid', 'customerId'));
  test('customerId wrong type', async () => expectError(await post({ title: 'ok', customerId: 7 }), 400, 'parameter_invalid', 'customerId'));
  test('customerEmail not an email', async () => expectError(await post({ title: 'ok', customerEmail: 'nope' }), 400, 'parameter_invalid', 'customerEmail'));
  test('tags not an array', async () => expectError(await post({ title: 'ok', tags: 'a,b' }), 400, 'parameter_invalid', 'tags'));
  test('tag not a string', async () => expectError(await post({ title: 'ok', tags: ['a', 1] }), 400, 'parameter_invalid', 'tags.1'));
  test('notes wrong type', async () => expectError(await post({ title: 'ok', notes: ['x'] }), 400, 'parameter_invalid', 'notes'));
  test('metadata with 51 keys', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    expectError(await post({ title: 'ok', metadata }), 400, 'parameter_invalid', 'metadata');
  });
  test('metadata not an object', async () => expectError(await post({ title: 'ok', metadata: [1] }), 400, 'parameter_invalid', 'metadata'));
  test('metadata key starting with $', async () => expectError(await post({ title: 'ok', metadata: { $where: 1 } }), 400, 'parameter_invalid', 'metadata'));
  test('metadata key with a dot', async () => expectError(await post({ title: 'ok', metadata: { 'a.b': 1 } }), 400, 'parameter_invalid', 'metadata'));
  test('metadata key over 40 characters', async () => expectError(await post({ title: 'ok', metadata: { ['k'.repeat(41)]: 1 } }), 400, 'parameter_invalid', 'metadata.' + 'k'.repeat(41)));
  test('51 tags', async () => expectError(await post({ title: 'ok', tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }), 400, 'parameter_invalid', 'tags'));
  test('tag over 50 characters', async () => expectError(await post({ title: 'ok', tags: ['x'.repeat(51)] }), 400, 'parameter_invalid', 'tags.0'));
  test('empty tag', async () => expectError(await post({ title: 'ok', tags: ['  '] }), 400, 'parameter_invalid', 'tags.0'));
  test('notes over 10,000 characters', async () => expectError(await post({ title: 'ok', notes: 'n'.repeat(10_001) }), 400, 'parameter_invalid', 'notes'));
  test('customerName over 255 characters', async () => expectError(await post({ title: 'ok', customerName: 'n'.repeat(256) }), 400, 'parameter_invalid', 'customerName'));
  test('101 initial messages', async () =>
    expectError(await post({ title: 'ok', messages: Array.from({ length: 101 }, () => ({ sender: 'customer', content: 'x' })) }), 400, 'parameter_invalid', 'messages'));
  test('messages not an array', async () => expectError(await post({ title: 'ok', messages: 'hi' }), 400, 'parameter_invalid', 'messages'));
  test('message without content', async () =>
    expectError(await post({ title: 'ok', messages: [{ sender: 'customer' }] }), 400, 'parameter_missing', 'messages.0.content'));
  test('message without sender', async () =>
    expectError(await post({ title: 'ok', messages: [{ content: 'hi' }] }), 400, 'parameter_missing', 'messages.0.sender'));
  test('message with an unknown sender', async () =>
    expectError(await post({ title: 'ok', messages: [{ sender: 'bot', content: 'hi' }] }), 400, 'parameter_invalid', 'messages.0.sender'));
  test('message with an unknown field', async () =>
    expectError(await post({ title: 'ok', messages: [{ sender: 'ai', content: 'hi', mood: 1 }] }), 400, 'parameter_invalid', 'messages.0.mood'));
  test('message whose messageType and isInternal disagree', async () =>
    expectError(
      await post({ title: 'ok', messages: [{ sender: 'agent', content: 'a' }, { sender: 'agent', content: 'b', messageType: 'public', isInternal: true }] }),
      400, 'parameter_invalid', 'messages.1.isInternal',
    ));
  test('body that is not JSON', async () => expectError(await call(base, 'POST', T, { rawBody: '{"title":' }), 400, 'invalid_json'));
  test('body that is an array', async () => expectError(await post([{ title: 'x' }]), 400, 'invalid_json'));
});

describe('PATCH /tickets/:id body validation', () => {
  const patch = (body: unknown) => call(base, 'PATCH', ONE, { body });
  test('status merged', async () => expectError(await patch({ status: 'merged' }), 400, 'parameter_invalid', 'status'));
  test('unknown status', async () => expectError(await patch({ status: 'done' }), 400, 'parameter_invalid', 'status'));
  test('unknown field', async () => expectError(await patch({ assignedTo: 'mem_1' }), 400, 'parameter_invalid', 'assignedTo'));
  test('messages are not a PATCH field', async () => expectError(await patch({ messages: [] }), 400, 'parameter_invalid', 'messages'));
  test('customerId of another kind in PATCH', async () => expectError(await patch({ customerId: 'tkt_abcdefgh1' }), 400, 'parameter_invalid', 'customerId'));
  test('customerId wrong type in PATCH', async () => expectError(await patch({ customerId: 12 }), 400, 'parameter_invalid', 'customerId'));
  test('title wrong type', async () => expectError(await patch({ title: null }), 400, 'parameter_invalid', 'title'));
  test('empty title', async () => expectError(await patch({ title: '' }), 400, 'parameter_invalid', 'title'));
  test('bad priority', async () => expectError(await patch({ priority: 'LOW' }), 400, 'parameter_invalid', 'priority'));
  test('tags not an array', async () => expectError(await patch({ tags: null }), 400, 'parameter_invalid', 'tags'));
  test('metadata not an object', async () => expectError(await patch({ metadata: 'x' }), 400, 'parameter_invalid', 'metadata'));
});

describe('POST /messages body validation', () => {
  const post = (body: unknown) => call(base, 'POST', MSGS, { body });
  test('content missing', async () => expectError(await post({ sender: 'agent' }), 400, 'parameter_missing', 'content'));
  test('content empty', async () => expectError(await post({ content: '' }), 400, 'parameter_invalid', 'content'));
  test('content wrong type', async () => expectError(await post({ content: 12 }), 400, 'parameter_invalid', 'content'));
  test('content too long', async () => expectError(await post({ content: 'x'.repeat(65_537) }), 400, 'parameter_invalid', 'content'));
  test('sender ai is only for ticket creation', async () => expectError(await post({ content: 'x', sender: 'ai' }), 400, 'parameter_invalid', 'sender'));
  test('unknown messageType', async () => expectError(await post({ content: 'x', messageType: 'private' }), 400, 'parameter_invalid', 'messageType'));
  test('isInternal wrong type', async () => expectError(await post({ content: 'x', isInternal: 'yes' }), 400, 'parameter_invalid', 'isInternal'));
  test('messageType and isInternal disagree', async () =>
    expectError(await post({ content: 'x', messageType: 'internal', isInternal: false }), 400, 'parameter_invalid', 'isInternal'));
  test('unknown field', async () => expectError(await post({ content: 'x', attachments: [] }), 400, 'parameter_invalid', 'attachments'));
  test('senderName over 255 characters', async () => expectError(await post({ content: 'x', senderName: 's'.repeat(256) }), 400, 'parameter_invalid', 'senderName'));
  test('blank content', async () => expectError(await post({ content: ' \n ' }), 400, 'parameter_invalid', 'content'));
});

describe('GET /tickets query validation', () => {
  const list = (qs: string) => call(base, 'GET', `${T}?${qs}`);
  test('unknown query parameter', async () => expectError(await list('sort=asc'), 400, 'parameter_invalid', 'sort'));
  test('bad status', async () => expectError(await list('status=done'), 400, 'parameter_invalid', 'status'));
  test('two statuses', async () => expectError(await list('status=new&status=open'), 400, 'parameter_invalid', 'status'));
  test('bad priority', async () => expectError(await list('priority=asap'), 400, 'parameter_invalid', 'priority'));
  test('customerId without prefix', async () => expectError(await list('customerId=123'), 400, 'parameter_invalid', 'customerId'));
  test('pageSize over 100', async () => expectError(await list('pageSize=101'), 400, 'parameter_invalid', 'pageSize'));
  test('pageSize 0', async () => expectError(await list('pageSize=0'), 400, 'parameter_invalid', 'pageSize'));
  test('page 0', async () => expectError(await list('page=0'), 400, 'parameter_invalid', 'page'));
  test('page not a number', async () => expectError(await list('page=two'), 400, 'parameter_invalid', 'page'));
  test('unknown expansion', async () => expectError(await list('expand[]=assignee'), 400, 'parameter_invalid', 'expand[].0'));
  test('unknown expansion via expand=', async () => expectError(await list('expand=customer&expand=owner'), 400, 'parameter_invalid', 'expand.1'));
});

describe('GET /tickets/:id query validation', () => {
  test('unknown query parameter', async () => expectError(await call(base, 'GET', `${ONE}?page=2`), 400, 'parameter_invalid', 'page'));
  test('unknown expansion', async () => expectError(await call(base, 'GET', `${ONE}?expand[]=owner`), 400, 'parameter_invalid', 'expand[].0'));
});

describe('GET /messages query validation', () => {
  test('unknown query parameter', async () =>
    expectError(await call(base, 'GET', `${MSGS}?order=desc`), 400, 'parameter_invalid', 'order'));
});
