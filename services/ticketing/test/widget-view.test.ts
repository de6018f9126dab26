/**
 * The widget's pure parts (docs/adr/0040): what a visitor sees of a ticket, field by field, and how
 * a subject is shortened to the title's 255 characters.
 */
import { shortenTitle, type MessageSnapshot } from '@helpdesk/contracts';
import { conversationView } from '../src/widget/view';

const at = '2026-01-02T03:04:05.000Z';
const message = (id: string, isInternal: boolean, content = id): MessageSnapshot => ({
  id,
  ticketId: 'tkt_1',
  content,
  sender: isInternal ? 'agent' : 'customer',
  senderName: 'Someone',
  isInternal,
  createdAt: at,
});

describe('the visitor\'s view of a conversation', () => {
  it('keeps public messages only and exactly the visitor\'s fields, whatever the ticket carries', () => {
    const ticket = { title: 'T', status: 'open', createdAt: at, updatedAt: at, notes: 'staff only', metadata: { vip: true }, assignedTo: 'mem_1', tags: ['x'] };
    const view = conversationView(
      { _id: 'tkt_1', visitorName: 'Vi', visitorEmail: 'vi@example.com', awaitingEmailConfirmation: true },
      ticket,
      [message('msg_1', false), message('msg_2', true, 'a note'), message('msg_3', false)],
    );
    expect(view).toEqual({
      object: 'widget_conversation',
      id: 'tkt_1',
      title: 'T',
      status: 'open',
      customer: { name: 'Vi', email: 'vi@example.com' },
      awaitingEmailConfirmation: true,
      messages: [
        { id: 'msg_1', sender: 'customer', senderName: 'Someone', content: 'msg_1', createdAt: at },
        { id: 'msg_3', sender: 'customer', senderName: 'Someone', content: 'msg_3', createdAt: at },
      ],
      createdAt: at,
      updatedAt: at,
    });
  });
});

describe('shortenTitle', () => {
  it('keeps a short subject, collapsing whitespace', () => {
    expect(shortenTitle('  Where is\n my   parcel? ')).toBe('Where is my parcel?');
  });

  it('cuts to 255 characters (code points) with an ellipsis', () => {
    const cut = shortenTitle('a'.repeat(5_000));
    expect([...cut]).toHaveLength(255);
    expect(cut.endsWith('…')).toBe(true);
    const emoji = shortenTitle('😀'.repeat(300));
    expect([...emoji]).toHaveLength(255);
    expect(shortenTitle('b'.repeat(255))).toBe('b'.repeat(255));
  });
});
