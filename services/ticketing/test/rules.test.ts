/** The pure parts of the rules: views, snapshots, search text, the internal flag, query parsing. */
import { messageSnapshotSchema, ticketSnapshotSchema } from '@helpdesk/contracts';
import { parseInput } from '@helpdesk/kit';
import { buildSearchText, replaceCustomerNameInSearchText, replaceTitleInSearchText, type TicketDoc } from '../src/tickets/model';
import { listTicketsQuery } from '@helpdesk/contracts';
import { messageView } from '../src/tickets/messages/view';
import { resolveInternal } from '../src/tickets/messages/internal';
import { ticketSnapshot, ticketView } from '../src/tickets/view';

const now = new Date('2026-01-02T03:04:05.678Z');
const doc: TicketDoc = {
  _id: 'tkt_abcdefghabcdefghabcdefgh', teamId: 't', mode: 'test', title: 'T', status: 'resolved', priority: 'high',
  customerId: null, customerName: 'N', customerEmail: null, assignedTo: null, tags: ['a'], notes: null, messageCount: 0,
  metadata: { k: 1 }, channel: 'api', searchText: 't\nn', rev: 0, createdAt: now, updatedAt: now, resolvedAt: now, closedAt: now,
};

test('the ticket snapshot satisfies the contracts schema and the public view drops internals', () => {
  expect(ticketSnapshotSchema.parse(ticketSnapshot(doc))).toMatchObject({ channel: 'api', resolvedAt: now.toISOString() });
  const view = ticketView(doc);
  // The channel, who opened it, its SLA clock and merge target are public (docs/adr/0025-0027).
  expect(view).toMatchObject({ channel: 'api', openedBy: 'member', sla: null, mergedInto: null });
  for (const k of ['searchText', 'slaNextDueAt', 'customerName', 'customerEmail', 'teamId', 'mode', '_id', 'messages', 'customer']) {
    expect(view).not.toHaveProperty(k);
  }
  const summary = { id: 'cus_x', name: 'N', email: null, status: 'active', sentiment: 'neutral', tags: [] };
  expect(ticketView(doc, { customer: summary }).customer).toEqual(summary);
  expect(ticketView(doc, { customer: null }).customer).toBeNull();
});

test('the message view satisfies the contracts schema', () => {
  const m = messageView({
    _id: 'msg_x', ticketId: doc._id, content: 'c', sender: 'ai', senderName: null, isInternal: true, createdAt: now, seq: 1,
  });
  expect(messageSnapshotSchema.parse(m)).toEqual(m);
});

test('search text: lowercase title, customer name, contents; a title change swaps only the title', () => {
  const s = buildSearchText('Straße İstanbul', 'Ada', ['Hello', 'WORLD']);
  expect(s).toBe('straße i̇stanbul\nada\nhello\nworld');
  expect(replaceTitleInSearchText(s, 'Straße İstanbul', 'New Title')).toBe('new title\nada\nhello\nworld');
  expect(buildSearchText('x', null, [])).toBe('x\n');
  expect(replaceCustomerNameInSearchText(s, 'Straße İstanbul', 'Ada', 'Grace Hopper')).toBe('straße i̇stanbul\ngrace hopper\nhello\nworld');
  expect(replaceCustomerNameInSearchText(buildSearchText('a\nb', null, ['c']), 'a\nb', null, 'Z')).toBe('a\nb\nz\nc');
  expect(replaceCustomerNameInSearchText(s, 'Straße İstanbul', 'Ada', null)).toBe('straße i̇stanbul\n\nhello\nworld');
});

test('messageType and isInternal', () => {
  expect(resolveInternal({})).toBe(false);
  expect(resolveInternal({ messageType: 'internal' })).toBe(true);
  expect(resolveInternal({ isInternal: true })).toBe(true);
  expect(resolveInternal({ messageType: 'public', isInternal: false })).toBe(false);
  expect(() => resolveInternal({ messageType: 'public', isInternal: true }, 'messages.2.')).toThrow(
    expect.objectContaining({ code: 'parameter_invalid', param: 'messages.2.isInternal' }),
  );
});

test('list query: defaults, expand in both spellings, comma lists', () => {
  expect(parseInput(listTicketsQuery, {})).toEqual({ page: 1, pageSize: 20 });
  expect(parseInput(listTicketsQuery, { 'expand[]': ['customer', 'messages'], pageSize: '5' })).toEqual({
    'expand[]': ['customer', 'messages'], page: 1, pageSize: 5,
  });
  expect(parseInput(listTicketsQuery, { expand: 'messages,customer' }).expand).toEqual(['messages', 'customer']);
});
