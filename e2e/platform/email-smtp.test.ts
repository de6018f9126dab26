/**
 * Email in and out over real SMTP (docs/adr/0041): a customer's mail sent with Nodemailer to the
 * inbound listener opens a ticket, a reply continues it, automatic mail never does; an agent's public
 * reply is received, threaded, by a test SMTP receiver; an internal note never is.
 */
import { customerEmail, DOMAIN, MAX_BYTES, startEmailPlatform, ticketIdOf, ticketTotal, type EmailPlatform } from './email-helpers';
import { eventually } from '@helpdesk/testing';
import { expectOk } from './helpdesk-helpers';

let ep: EmailPlatform;
const tickets = () => `${ep.tp.teamPath}/tickets`;
const getTicket = async (id: string) => expectOk(await ep.tp.api.get(`${tickets()}/${id}`), 200);

beforeAll(async () => {
  ep = await startEmailPlatform();
}, 60_000);
afterAll(async () => ep?.stop(), 60_000);

/** Sends and answers the ticket the listener made or continued. */
async function deliver(mail: Parameters<EmailPlatform['send']>[0]): Promise<string> {
  const info = await ep.send({ to: ep.address, ...mail });
  const id = ticketIdOf(info);
  if (!id) throw new Error(`no ticket in the SMTP answer: ${info.response}`);
  return id;
}

describe('SMTP listener: new mail, replies', () => {
  it('a new mail opens a ticket (channel email, openedBy customer) with the sender as its customer, visible through the API', async () => {
    const from = customerEmail('ada');
    const id = await deliver({ from: `Ada Lovelace <${from}>`, subject: 'Printer on fire', text: 'It is on fire.\nPlease help.', messageId: `<first.${Date.now()}@customer.example>` });
    const t = await getTicket(id);
    expect(t).toMatchObject({ title: 'Printer on fire', channel: 'email', openedBy: 'customer', status: 'new', messageCount: 1 });
    expect(t.messages[0]).toMatchObject({ sender: 'customer', senderName: 'Ada Lovelace', isInternal: false, content: 'It is on fire.\nPlease help.' });
    const customer = expectOk(await ep.tp.api.get(`${ep.tp.teamPath}/customers/${t.customerId}`), 200);
    expect(customer).toMatchObject({ email: from, name: 'Ada Lovelace' });
    const listed = expectOk(await ep.tp.api.get(`${tickets()}?customerId=${t.customerId}`), 200);
    expect(listed.map((x: any) => x.id)).toEqual([id]);
  });

  it('a second mail from a known customer opens a ticket for that same customer (found by email, case-insensitive)', async () => {
    const from = customerEmail('grace');
    const first = await getTicket(await deliver({ from, subject: 'One', text: 'one' }));
    const second = await getTicket(await deliver({ from: from.toUpperCase(), subject: 'Two', text: 'two' }));
    expect(second.id).not.toBe(first.id);
    expect(second.customerId).toBe(first.customerId);
  });

  it('a reply (In-Reply-To / References) continues its ticket instead of opening one, without its quoted history', async () => {
    const from = customerEmail('linus');
    const messageId = `<orig.${Date.now()}@customer.example>`;
    const id = await deliver({ from, subject: 'Cannot log in', text: 'Help', messageId });
    const before = await ticketTotal(ep.tp);
    const again = await deliver({ from, subject: 'Re: Cannot log in', text: 'Still broken\n\nOn Mon, 23 Nov 2026, Support wrote:\n> Help', inReplyTo: messageId, references: [messageId] });
    expect(again).toBe(id);
    const t = await getTicket(id);
    expect(t.messageCount).toBe(2);
    expect(t.messages.map((m: any) => [m.sender, m.content])).toEqual([['customer', 'Help'], ['customer', 'Still broken']]);
    expect(await ticketTotal(ep.tp)).toBe(before);
  });

  it('mail to the per-ticket reply address continues that ticket without any threading header', async () => {
    const from = customerEmail('ken');
    const id = await deliver({ from, subject: 'Billing', text: 'Invoice wrong' });
    const again = await deliver({ from, to: ep.replyAddress(id), subject: 'something else', text: 'Also this' });
    expect(again).toBe(id);
    expect((await getTicket(id)).messageCount).toBe(2);
  });

  it('the same mail delivered twice (same Message-ID) makes one ticket', async () => {
    const messageId = `<twice.${Date.now()}@customer.example>`;
    const mail = { from: customerEmail('dup'), subject: 'Twice', text: 'once', messageId };
    const id = await deliver(mail);
    const before = await ticketTotal(ep.tp);
    const info = await ep.send({ to: ep.address, ...mail });
    // Answered, but without naming the ticket: a Message-ID may be someone else's.
    expect(info.response).toBe('250 2.0.0 duplicate');
    expect(await ticketTotal(ep.tp)).toBe(before);
    expect((await getTicket(id)).messageCount).toBe(1);
  });
});

describe('SMTP listener: subjects and bodies', () => {
  it('a 5,000-character subject becomes a 255-character title', async () => {
    const subject = `${'Very long subject '.repeat(300)}`.slice(0, 5_000);
    const t = await getTicket(await deliver({ from: customerEmail('long'), subject, text: 'body' }));
    expect([...t.title].length).toBe(255);
    expect(t.title.endsWith('…')).toBe(true);
    expect(subject.startsWith(t.title.slice(0, -1))).toBe(true);
  });

  it('an HTML-only mail: its HTML converted to text is the first message', async () => {
    const html = '<html><body><h1>Hello</h1><p>The <b>export</b> button fails.</p><ul><li>Chrome</li></ul><script>alert(1)</script></body></html>';
    const t = await getTicket(await deliver({ from: customerEmail('html'), subject: 'HTML', html }));
    const content: string = t.messages[0].content;
    expect(content).toContain('HELLO');
    expect(content).toContain('The export button fails.');
    expect(content).toContain('* Chrome');
    expect(content).not.toMatch(/<[a-z]/i);
    expect(content).not.toContain('alert(1)');
  });

  it('a mail with no text part: the documented fallback names its attachments by name and size', async () => {
    const t = await getTicket(
      await deliver({ from: customerEmail('att'), subject: 'Logs attached', attachments: [{ filename: 'log.txt', content: Buffer.from('x'.repeat(1234)), contentType: 'application/octet-stream' }] }),
    );
    expect(t.messages[0].content).toBe('(This email had no text. Attachments: log.txt (1234 bytes))');
  });

  it('an empty subject is "(no subject)"', async () => {
    const t = await getTicket(await deliver({ from: customerEmail('nosubj'), subject: '', text: 'hi' }));
    expect(t.title).toBe('(no subject)');
  });
});

describe('SMTP listener: automatic mail and refusals', () => {
  const automatic: [string, Parameters<EmailPlatform['send']>[0]][] = [
    ['Auto-Submitted: auto-replied', { headers: { 'Auto-Submitted': 'auto-replied' } }],
    ['Auto-Submitted: auto-generated; with a parameter', { headers: { 'Auto-Submitted': 'auto-generated; owner=x' } }],
    ['Precedence: bulk', { headers: { Precedence: 'bulk' } }],
    ['Precedence: auto_reply', { headers: { Precedence: 'auto_reply' } }],
    ['From mailer-daemon', { from: `MAILER-DAEMON@${'customer.example'}` }],
    ['the null sender <>', { envelope: { from: '', to: [] } }],
  ];

  it.each(automatic)('%s never opens a ticket and never continues one', async (_name, extra) => {
    const from = customerEmail('auto');
    const id = await deliver({ from, subject: 'Real question', text: 'q', messageId: `<real.${Math.random()}@customer.example>` });
    const ticket = await getTicket(id);
    const before = await ticketTotal(ep.tp);
    const mail = { from, to: ep.replyAddress(id), subject: 'Out of office', text: 'I am away', inReplyTo: ticket.id, ...extra };
    if (mail.envelope) mail.envelope = { from: '', to: [ep.replyAddress(id)] };
    const info = await ep.send(mail);
    expect(info.response).toMatch(/^250 /);
    expect(ticketIdOf(info)).toBeNull();
    expect(await ticketTotal(ep.tp)).toBe(before);
    expect((await getTicket(id)).messageCount).toBe(1);
  });

  it('a recipient that is not ours, or another domain, is refused with 550 (never an open relay)', async () => {
    for (const to of [`someone@${DOMAIN}`, `${ep.tp.team.teamId}@elsewhere.example`]) {
      await expect(ep.send({ from: customerEmail('x'), to, subject: 's', text: 't' })).rejects.toMatchObject({ responseCode: 550 });
    }
  });

  it('malformed MIME (no header block) is refused with 550 and writes nothing', async () => {
    const before = await ticketTotal(ep.tp);
    await expect(ep.send({ envelope: { from: 'x@customer.example', to: [ep.address] }, raw: 'this is not a mail at all' })).rejects.toMatchObject({ responseCode: 550 });
    expect(await ticketTotal(ep.tp)).toBe(before);
  });

  it('a mail larger than the size limit is refused with 552 and writes nothing', async () => {
    const before = await ticketTotal(ep.tp);
    await expect(ep.send({ from: customerEmail('big'), to: ep.address, subject: 'big', text: 'x'.repeat(MAX_BYTES + 10) })).rejects.toMatchObject({ responseCode: 552 });
    expect(await ticketTotal(ep.tp)).toBe(before);
  });
});

describe('email out: agents\' replies', () => {
  it('a public reply is mailed to the customer from the team\'s support address, threaded; an internal note never is; an answer to it continues the ticket', async () => {
    const support = `help.${Math.random().toString(36).slice(2, 8)}@acme.example`;
    expectOk(await ep.tp.api.patch(`${ep.tp.teamPath}/settings`, { supportEmail: support }), 200);
    const from = customerEmail('thread');
    const customerMessageId = `<cust.${Date.now()}@customer.example>`;
    const id = await deliver({ from: `Tess Thread <${from}>`, subject: 'Where is my order?', text: 'Order 42', messageId: customerMessageId });
    // The settings' event reaches ticketing by the bus: the support address is used once it has.
    await ep.tp.platform.workspace.relay.drain();
    await eventually('ticketing knows the support address', async () => {
      const row = await ep.tp.platform.ticketing.conn.models.TeamMailIdentity.findOne({ _id: ep.tp.team.teamId }).lean<{ supportEmail: string | null }>();
      return row?.supportEmail === support;
    });

    const note = expectOk(await ep.tp.api.post(`${tickets()}/${id}/messages`, { content: 'SECRET internal note', messageType: 'internal' }), 201);
    const reply = expectOk(await ep.tp.api.post(`${tickets()}/${id}/messages`, { content: 'It ships today.', senderName: 'Sam Agent' }), 201);
    await ep.tp.platform.ticketing.relay.drain();

    const mail = await ep.sink.waitFor('the reply mail', (m) => m.text?.includes('It ships today.') ?? false);
    expect(mail.to).toMatchObject({ value: [{ address: from }] });
    expect(mail.from?.value[0].address).toBe(support);
    expect(mail.subject).toBe('Re: Where is my order?');
    expect(mail.inReplyTo).toBe(customerMessageId);
    expect([mail.references].flat()).toContain(customerMessageId);
    expect(mail.messageId).toBe(`<${reply.id}.${id}@${DOMAIN}>`);
    expect(mail.replyTo?.value[0].address).toBe(ep.replyAddress(id));
    expect(mail.text).toContain('Sam Agent');
    expect(ep.sink.received.some((m) => m.text?.includes('SECRET internal note') || m.messageId?.includes(note.id))).toBe(false);

    // The customer answers our mail: its In-Reply-To is our Message-ID, and the ticket goes on.
    const again = await deliver({ from, subject: 'Re: Where is my order?', text: 'Thanks!', inReplyTo: mail.messageId, references: [customerMessageId, mail.messageId!] });
    expect(again).toBe(id);
    const t = await getTicket(id);
    expect(t.messages.map((m: any) => m.content)).toEqual(['Order 42', 'SECRET internal note', 'It ships today.', 'Thanks!']);

    // A second reply's References carry the whole thread, oldest first.
    const second = expectOk(await ep.tp.api.post(`${tickets()}/${id}/messages`, { content: 'Tracking: 123' }), 201);
    await ep.tp.platform.ticketing.relay.drain();
    const mail2 = await ep.sink.waitFor('the second reply mail', (m) => m.messageId === `<${second.id}.${id}@${DOMAIN}>`);
    expect(mail2.inReplyTo).toBeDefined();
    expect([mail2.references].flat()).toEqual([customerMessageId, mail.messageId, mail2.inReplyTo]);
  });

  it('replies on tickets that did not come by email are not mailed', async () => {
    const from = customerEmail('api');
    expectOk(await ep.tp.api.post(`${ep.tp.teamPath}/customers`, { name: 'Api Customer', email: from }), 201);
    const t = expectOk(await ep.tp.api.post(tickets(), { title: 'By API', customerEmail: from, messages: [{ sender: 'customer', content: 'hi' }] }), 201);
    expectOk(await ep.tp.api.post(`${tickets()}/${t.id}/messages`, { content: 'API-TICKET-REPLY' }), 201);
    // A later email ticket's reply arrives; the API ticket's (sent before it) never did.
    const id = await deliver({ from: customerEmail('after'), subject: 'After', text: 'x' });
    expectOk(await ep.tp.api.post(`${tickets()}/${id}/messages`, { content: 'EMAIL-TICKET-REPLY' }), 201);
    await ep.tp.platform.ticketing.relay.drain();
    await ep.sink.waitFor('the email ticket reply', (m) => m.text?.includes('EMAIL-TICKET-REPLY') ?? false);
    expect(ep.sink.received.some((m) => m.text?.includes('API-TICKET-REPLY'))).toBe(false);
  });
});
