/**
 * The public ticket is built in one pass (docs/adr/0077): the same JSON, field for field and in the
 * same order, as the event snapshot without its revision, which is how it was built before; and what
 * it returns shares nothing mutable with the stored document.
 */
import { ticketSchema } from '@helpdesk/contracts';
import { ticketSnapshot, ticketView } from '../src/tickets/view';
import type { TicketDoc } from '../src/tickets/model';

/** The view as it was built: the snapshot less `revision`, its defaults, then the extras. */
function viewFromSnapshot(t: TicketDoc, extra: { customer?: unknown; messages?: unknown[] } = {}) {
  const { revision: _revision, ...snap } = ticketSnapshot(t);
  return { ...snap, openedBy: snap.openedBy ?? 'member', sla: snap.sla ?? null, mergedInto: snap.mergedInto ?? null, customFields: { ...(t.customFields ?? {}) }, ...extra };
}

const full = {
  _id: 'tkt_full',
  title: 'Printer on fire',
  status: 'open',
  priority: 'urgent',
  customerId: 'cus_aaaaaaaa11111111',
  assignedTo: 'mem_agent0000001',
  tags: ['hardware', 'fire'],
  notes: 'call the fire brigade',
  messageCount: 2,
  metadata: { floor: '3' },
  customFields: { asset: 'PR-1', count: 2 },
  channel: 'email',
  openedBy: 'customer',
  sla: null,
  mergedInto: 'tkt_other',
  createdAt: new Date('2026-11-01T10:00:00.000Z'),
  updatedAt: new Date('2026-11-02T10:00:00.000Z'),
  resolvedAt: new Date('2026-11-03T10:00:00.000Z'),
  closedAt: new Date('2026-11-04T10:00:00.000Z'),
  rev: 7,
} as unknown as TicketDoc;

/** What an older document may lack (no channel, opener, tags, metadata, custom fields, SLA). */
const sparse = {
  _id: 'tkt_sparse',
  title: 'Old one',
  status: 'new',
  priority: 'normal',
  messageCount: 0,
  createdAt: new Date('2020-01-01T00:00:00.000Z'),
  updatedAt: new Date('2020-01-01T00:00:00.000Z'),
  resolvedAt: null,
  closedAt: null,
} as unknown as TicketDoc;

describe('ticketView', () => {
  it.each([
    ['a full ticket', full, {}],
    ['a sparse ticket', sparse, {}],
    ['with its customer and messages', full, { customer: null, messages: [] }],
  ])('%s: the same JSON as the snapshot less its revision', (_, t, extra) => {
    const view = ticketView(t, extra as never);
    expect(JSON.stringify(view)).toBe(JSON.stringify(viewFromSnapshot(t, extra as never)));
    expect(() => ticketSchema.parse(view)).not.toThrow();
    expect(view).not.toHaveProperty('revision');
  });

  it('shares no array or object with the stored document', () => {
    const view = ticketView(full);
    view.tags.push('changed');
    (view.metadata as Record<string, unknown>).floor = '4';
    (view.customFields as Record<string, unknown>).asset = 'changed';
    expect(full.tags).toEqual(['hardware', 'fire']);
    expect(full.metadata).toEqual({ floor: '3' });
    expect(full.customFields).toEqual({ asset: 'PR-1', count: 2 });
  });
});
