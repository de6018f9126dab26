/** Inbound email's parsing and addresses (docs/adr/0041): what a mail becomes, which mail is automatic, which address is ours. */
import { CONTENT_MAX } from '@helpdesk/contracts';
import { outgoingMessageId, replyAddress, routeOf, teamAddress, ticketOfOurMessageId } from '../src/inbound-email/addresses';
import { MalformedMail, parseInboundMail, withoutQuotedHistory } from '../src/inbound-email/parse';

const TEAM = '0b7a4d2e-6f1c-4a8e-9b3d-2c5e7f9a1b0d';
const DOMAIN = 'mail.example.test';

const mail = (headers: string[], body = 'Hello', contentType = 'text/plain; charset=utf-8') =>
  Buffer.from([...headers, `Content-Type: ${contentType}`, '', body, ''].join('\r\n'));
const person = ['From: Ada <Ada@Customer.Example>', 'Subject: Help', 'Message-ID: <m1@customer.example>'];

describe('parseInboundMail', () => {
  it('a plain mail: sender (lowercased), title, text, Message-ID, no reason to ignore', async () => {
    const m = await parseInboundMail(mail(person, 'Line one\r\nLine two'));
    expect(m).toEqual({
      messageId: '<m1@customer.example>',
      replyTo: [],
      fromAddress: 'ada@customer.example',
      fromName: 'Ada',
      title: 'Help',
      content: 'Line one\nLine two',
      replyContent: 'Line one\nLine two',
      attachments: [],
      automatic: null,
    });
  });

  it('In-Reply-To and References are kept, oldest first', async () => {
    const m = await parseInboundMail(mail([...person, 'References: <a@x> <b@x>', 'In-Reply-To: <b@x>']));
    expect(m.replyTo).toEqual(['<a@x>', '<b@x>', '<b@x>']);
  });

  it('a 5,000-character subject is shortened to 255 characters (code points), ending in …', async () => {
    const subject = '😀'.repeat(5_000);
    const m = await parseInboundMail(mail([`From: a@b.example`, `Subject: =?UTF-8?B?${Buffer.from(subject).toString('base64')}?=`]));
    expect([...m.title]).toHaveLength(255);
    expect(m.title.endsWith('…')).toBe(true);
  });

  it('HTML only: converted to text (no markup, no script)', async () => {
    const m = await parseInboundMail(mail(person, '<p>Hi <b>there</b></p><script>x()</script><p>Bye</p>', 'text/html; charset=utf-8'));
    expect(m.content).toBe('Hi there\n\nBye');
  });

  it('no text and no HTML: the documented fallback', async () => {
    const m = await parseInboundMail(mail(person, ''));
    expect(m.content).toBe('(This email had no text.)');
  });

  it('attachments are recorded by name, type and size, and named in the message', async () => {
    const raw = Buffer.from(
      [
        ...person,
        'Content-Type: multipart/mixed; boundary=zz',
        '',
        '--zz',
        'Content-Type: text/plain',
        '',
        'See attached',
        '--zz',
        'Content-Type: application/pdf; name=a.pdf',
        'Content-Disposition: attachment; filename=a.pdf',
        'Content-Transfer-Encoding: base64',
        '',
        Buffer.from('%PDF-1.4 hello').toString('base64'),
        '--zz--',
        '',
      ].join('\r\n'),
    );
    const m = await parseInboundMail(raw);
    expect(m.attachments).toEqual([{ filename: 'a.pdf', contentType: 'application/pdf', size: 14 }]);
    expect(m.content).toBe('See attached\n\nAttachments: a.pdf (14 bytes)');
  });

  it('a body longer than a message may be is shortened with a note', async () => {
    const m = await parseInboundMail(mail(person, 'x'.repeat(CONTENT_MAX + 100)));
    expect(m.content.length).toBeLessThanOrEqual(CONTENT_MAX);
    expect(m.content.endsWith('[This email was shortened to fit a message.]')).toBe(true);
  });

  it.each([
    ['Auto-Submitted: auto-replied', 'Auto-Submitted: auto-replied'],
    ['Auto-Submitted: auto-generated; x=y', 'Auto-Submitted: auto-generated'],
    ['Precedence: bulk', 'Precedence: bulk'],
    ['Precedence: junk', 'Precedence: junk'],
    ['Precedence: list', 'Precedence: list'],
    ['Precedence: auto_reply', 'Precedence: auto_reply'],
    ['X-Autoreply: yes', 'X-Autoreply'],
  ])('%s is automatic', async (header, reason) => {
    expect((await parseInboundMail(mail([...person, header]))).automatic).toBe(reason);
  });

  it('Auto-Submitted: no and Precedence: normal are a person\'s mail', async () => {
    expect((await parseInboundMail(mail([...person, 'Auto-Submitted: no', 'Precedence: normal']))).automatic).toBeNull();
  });

  it('the null sender, mailer-daemon and delivery reports are automatic', async () => {
    expect((await parseInboundMail(mail(person), '')).automatic).toBe('null sender (a bounce)');
    expect((await parseInboundMail(mail(['From: MAILER-DAEMON@mx.example', 'Subject: Undelivered']))).automatic).toBe('sender mailer-daemon@mx.example');
    expect((await parseInboundMail(mail(person, 'x', 'multipart/report; report-type=delivery-status; boundary=b'))).automatic).toBe('a delivery report');
  });

  it('malformed: no header block, or no From address', async () => {
    await expect(parseInboundMail(Buffer.from('this is not a mail'))).rejects.toBeInstanceOf(MalformedMail);
    await expect(parseInboundMail(mail(['Subject: nobody']))).rejects.toThrow('no From address');
  });
});

describe('withoutQuotedHistory (what a continued ticket gets)', () => {
  it.each([
    ['Gmail', 'Thanks, that worked!\n\nOn Tue, 24 Nov 2026 at 10:00, Acme Support <help@acme.example> wrote:\n> It ships today.\n>\n> — Sam'],
    ['Gmail, the header wrapped', 'Thanks, that worked!\n\nOn Tue, 24 Nov 2026 at 10:00, Acme Support <help@acme.example>\nwrote:\n\n> It ships today.'],
    ['Outlook', 'Thanks, that worked!\n\n-----Original Message-----\nFrom: Acme Support\nSent: Tuesday\n\nIt ships today.'],
    ['a trailing quote without header', 'Thanks, that worked!\n\n> It ships today.\n> — Sam\n'],
  ])('%s: the quoted history is dropped', (_client, text) => {
    expect(withoutQuotedHistory(text)).toBe('Thanks, that worked!');
  });

  it('an inline answer between quotes, and a mail that is only a quote, are kept whole', () => {
    const inline = '> Which browser?\nChrome 120\n> Which OS?\nmacOS';
    expect(withoutQuotedHistory(inline)).toBe(inline);
    expect(withoutQuotedHistory('> only a quote')).toBe('> only a quote');
    expect(withoutQuotedHistory('On the roadmap you wrote: ship it.\nAgreed.')).toBe('On the roadmap you wrote: ship it.\nAgreed.');
  });

  it('parseInboundMail keeps the whole text as content and the answer as replyContent', async () => {
    const m = await parseInboundMail(mail(person, 'Yes!\r\n\r\nOn Mon, Ada wrote:\r\n> Ready?'));
    expect(m.content).toBe('Yes!\n\nOn Mon, Ada wrote:\n> Ready?');
    expect(m.replyContent).toBe('Yes!');
  });
});

describe('addresses', () => {
  it('a partition\'s address and its reply addresses route back to it; anything else is not ours', () => {
    expect(teamAddress({ teamId: TEAM, mode: 'live' }, DOMAIN)).toBe(`${TEAM}@${DOMAIN}`);
    expect(routeOf(teamAddress({ teamId: TEAM, mode: 'test' }, DOMAIN), DOMAIN)).toEqual({ teamId: TEAM, mode: 'test', ticketId: null });
    const reply = replyAddress({ teamId: TEAM, mode: 'live' }, 'tkt_AbCdEfGh12345678', DOMAIN);
    expect(routeOf(reply, DOMAIN.toUpperCase())).toEqual({ teamId: TEAM, mode: 'live', ticketId: 'tkt_AbCdEfGh12345678' });
    expect(routeOf(`${TEAM.toUpperCase()}@${DOMAIN}`, DOMAIN)).toEqual({ teamId: TEAM, mode: 'live', ticketId: null });
    for (const other of [`${TEAM}@elsewhere.example`, `support@${DOMAIN}`, `${TEAM}.prod@${DOMAIN}`, `${TEAM}+cus_123456789@${DOMAIN}`, 'no-at-sign']) {
      expect(routeOf(other, DOMAIN)).toBeNull();
    }
  });

  it('our Message-IDs name their ticket; others\' do not', () => {
    const id = outgoingMessageId('msg_Abc12345678', 'tkt_Xyz12345678', DOMAIN);
    expect(id).toBe(`<msg_Abc12345678.tkt_Xyz12345678@${DOMAIN}>`);
    expect(ticketOfOurMessageId(id, DOMAIN)).toBe('tkt_Xyz12345678');
    expect(ticketOfOurMessageId('<msg_Abc12345678.tkt_Xyz12345678@evil.example>', DOMAIN)).toBeNull();
    expect(ticketOfOurMessageId('<random@customer.example>', DOMAIN)).toBeNull();
  });
});
