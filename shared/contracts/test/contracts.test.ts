import { EVENT_TYPES, isWellFormedId, topicMatches, parseEvent, ROLE_PERMISSIONS, PERMISSIONS } from '../src';

describe('ids', () => {
  it('accepts UUIDs and known prefixed ids, refuses the rest', () => {
    expect(isWellFormedId('tkt_AbC123xyz9')).toBe(true);
    expect(isWellFormedId('3f1c2a4e-8b7d-4c2a-9f1e-2b3c4d5e6f70')).toBe(true);
    expect(isWellFormedId('zzz_AbC123xyz9')).toBe(false);
    expect(isWellFormedId('tkt_short')).toBe(false);
    expect(isWellFormedId('12345')).toBe(false);
  });
});

describe('topicMatches', () => {
  it.each([
    ['ticket.*', 'ticket.created', true],
    ['ticket.*', 'customer.created', false],
    ['#', 'ticket.message_added', true],
    ['ticket.#', 'ticket', true],
    ['*.created', 'customer_group.created', true],
    ['ticket.created', 'ticket.created', true],
    ['ticket.*', 'ticket.a.b', false],
  ])('%s ~ %s = %s', (pattern, key, expected) => {
    expect(topicMatches(pattern, key)).toBe(expected);
  });
});

describe('parseEvent', () => {
  const base = {
    id: 'evt_abcdefgh12',
    type: 'ticket.deleted',
    version: 1,
    teamId: '3f1c2a4e-8b7d-4c2a-9f1e-2b3c4d5e6f70',
    mode: 'test',
    occurredAt: new Date().toISOString(),
    requestId: 'req_1',
    actor: { type: 'key', id: 'key_1' },
  };
  const ticket = {
    id: 'tkt_abcdefgh12', title: 't', status: 'new', priority: 'normal', customerId: null, assignedTo: null,
    tags: [], notes: null, messageCount: 0, metadata: {}, channel: 'api',
    createdAt: base.occurredAt, updatedAt: base.occurredAt, resolvedAt: null, closedAt: null,
  };
  it('accepts a catalogued event with a valid payload', () => {
    expect(parseEvent({ ...base, data: { ticketId: ticket.id, customerId: null, ticket } }).type).toBe('ticket.deleted');
  });
  it('refuses an unknown type, a wrong version and a bad payload', () => {
    expect(() => parseEvent({ ...base, type: 'ticket.exploded', data: {} })).toThrow(/unknown event type/);
    expect(() => parseEvent({ ...base, version: 2, data: { ticketId: 'x', customerId: null, ticket } })).toThrow(/v2/);
    expect(() => parseEvent({ ...base, data: { ticketId: 1 } })).toThrow();
  });
});

describe('the catalog', () => {
  const base = {
    id: 'evt_abcdefgh12', version: 1, teamId: '3f1c2a4e-8b7d-4c2a-9f1e-2b3c4d5e6f70', mode: 'test',
    occurredAt: new Date().toISOString(), requestId: null, actor: { type: 'system', id: null },
  };
  const at = base.occurredAt;
  const customer = {
    id: 'cus_abcdefgh12', name: 'Ada', email: null, status: 'active', sentiment: 'neutral', tags: [], notes: null,
    metadata: {}, ticketCount: 0, createdAt: at, updatedAt: at, rev: 0,
  };
  const group = {
    id: '3f1c2a4e-8b7d-4c2a-9f1e-2b3c4d5e6f71', name: 'VIP', slug: 'vip', description: null, externalId: null,
    customFields: {}, customerCount: 1, createdAt: at, updatedAt: at,
  };
  const webhook = { id: 'whk_abcdefgh12', name: 'n', url: 'https://example.com/h', events: ['ticket.*'], isActive: false, createdAt: at, updatedAt: at };

  it('names every event category.action, lowercase, as the routing key', () => {
    // category.action, or category.resource.action where the spec names them so (community.post.created).
    for (const type of EVENT_TYPES) expect(type).toMatch(/^[a-z_]+(\.[a-z_]+){1,2}$/);
    expect(EVENT_TYPES).toEqual(expect.arrayContaining(['customer.deleted', 'customer_group.member_added', 'webhook.disabled']));
  });

  it('accepts the customer, group and webhook payloads and refuses out-of-range values', () => {
    expect(parseEvent({ ...base, type: 'customer.deleted', data: { customerId: customer.id, customer } }).type).toBe('customer.deleted');
    expect(parseEvent({ ...base, type: 'customer_group.member_removed', data: { group, member: { id: customer.id, name: 'Ada', email: null, joinedGroupAt: at }, reason: 'customer_deleted' } }).type).toBe('customer_group.member_removed');
    expect(parseEvent({ ...base, type: 'webhook.disabled', data: { webhook, reason: 'gone', lastStatusCode: 410, failingSince: null } }).type).toBe('webhook.disabled');
    expect(() => parseEvent({ ...base, type: 'customer.created', data: { customer: { ...customer, rev: -1 } } })).toThrow();
    expect(() => parseEvent({ ...base, type: 'webhook.disabled', data: { webhook, reason: 'bored', lastStatusCode: null, failingSince: null } })).toThrow();
  });
});

describe('roles', () => {
  it('gives the owner every permission and the spectator no manage_ one', () => {
    expect([...ROLE_PERMISSIONS.owner].sort()).toEqual([...PERMISSIONS].sort());
    expect(ROLE_PERMISSIONS.spectator.some((p) => p.startsWith('manage_'))).toBe(false);
  });
});
