/**
 * Email out (docs/adr/0041): an agent's public reply on an email ticket is mailed to the customer over
 * real SMTP, threaded with the headers ticketing answers; internal notes, customers' messages and
 * other channels' tickets are never mailed; one mail per event.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { EmailReplyThread } from '@helpdesk/contracts';
import { envelope, eventually, messageFixture, startServiceHarness, ticketFixture, tokens } from '@helpdesk/testing';
import { startNotifications } from '../src';
import { TEAM_A, type Harness } from './helpers';

const received: ParsedMail[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, _session, done) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', async () => {
      received.push(await simpleParser(Buffer.concat(chunks)));
      done();
    });
  },
});

/** Ticketing's reply-thread operation, answering from `threads` (by ticket id; absent: 404); each call's token is verified. */
const threads = new Map<string, Omit<EmailReplyThread, 'messageId'>>();
const asked: { ticketId: string; messageId: string | null; teamId: string }[] = [];
const ticketing = http.createServer(async (req, res) => {
  const claims = await tokens.verify(String(req.headers['x-internal-token'])).catch(() => null);
  const url = new URL(req.url ?? '/', 'http://x');
  const m = /^\/internal\/email-threads\/([^/]+)$/.exec(url.pathname);
  const send = (status: number, data?: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(data === undefined ? { success: false } : { success: true, data, meta: { requestId: 'req_fake', timestamp: new Date().toISOString() } }));
  };
  if (!claims || !m) return send(claims ? 404 : 401);
  const messageId = url.searchParams.get('messageId');
  asked.push({ ticketId: m[1], messageId, teamId: claims.teamId });
  const thread = threads.get(m[1]);
  if (!thread) return send(404);
  send(200, { ...thread, messageId: `<${messageId}.${m[1]}@mail.example.test>` });
});

let h: Harness;
beforeAll(async () => {
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
  await new Promise<void>((r) => ticketing.listen(0, '127.0.0.1', r));
  const smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}?ignoreTLS=true`;
  const ticketingUrl = `http://127.0.0.1:${(ticketing.address() as AddressInfo).port}`;
  h = await startServiceHarness(
    (opts) =>
      startNotifications({
        ...opts,
        workspaceUrl: 'http://127.0.0.1:9',
        dataDir: mkdtempSync(path.join(os.tmpdir(), 'notifications-replies-')),
        mailPollIntervalMs: 20,
        smtpUrl,
        ticketingUrl,
      }),
    { observe: [] },
  );
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await new Promise<void>((r) => smtp.close(() => r()));
  await new Promise<void>((r) => ticketing.close(() => r()));
});

/** An email ticket whose thread ticketing knows. */
function emailTicket(customer = `c${Math.random().toString(36).slice(2, 8)}@customer.example`) {
  const ticket = ticketFixture('cus_abcdefgh12345678', { channel: 'email', title: 'Printer on fire' });
  threads.set(ticket.id, {
    ticketId: ticket.id,
    to: customer,
    toName: 'Cara Customer',
    fromName: 'Acme Support',
    fromAddress: 'help@acme.example',
    replyTo: `${TEAM_A}.test+${ticket.id}@mail.example.test`,
    subject: 'Re: Printer on fire',
    inReplyTo: '<cust-2@customer.example>',
    references: ['<cust-1@customer.example>', '<cust-2@customer.example>'],
  });
  return { ticket, customer };
}
const messageAdded = (ticket: ReturnType<typeof ticketFixture>, message: ReturnType<typeof messageFixture>) =>
  envelope('ticket.message_added', { ticket, message }, { teamId: TEAM_A });
const mailRows = (ticketId: string) => h.svc.conn.collection('mails').countDocuments({ 'reply.ticketId': ticketId });

describe('agents\' replies on email tickets', () => {
  it('a public agent reply is mailed to the customer from the team\'s address, threaded, with a reply address', async () => {
    const { ticket, customer } = emailTicket();
    const message = messageFixture(ticket.id, 'It ships today.\n\nRegards', { sender: 'agent', senderName: 'Sam Agent' });
    await h.publish(messageAdded(ticket, message));
    const mail = await eventually('the reply', () => received.find((m) => m.messageId === `<${message.id}.${ticket.id}@mail.example.test>`));
    expect(asked).toContainEqual({ ticketId: ticket.id, messageId: message.id, teamId: TEAM_A });
    expect(mail.to).toMatchObject({ value: [{ address: customer }] });
    expect(mail.from?.value[0]).toEqual({ address: 'help@acme.example', name: 'Acme Support' });
    expect(mail.replyTo?.value[0].address).toBe(`${TEAM_A}.test+${ticket.id}@mail.example.test`);
    expect(mail.subject).toBe('Re: Printer on fire');
    expect(mail.inReplyTo).toBe('<cust-2@customer.example>');
    expect(mail.references).toEqual(['<cust-1@customer.example>', '<cust-2@customer.example>']);
    expect(mail.text).toBe('It ships today.\n\nRegards\n\n— Sam Agent, Acme Support');
    expect(mail.html).toContain('<p>It ships today.</p>');
  });

  it('the same event delivered twice mails once', async () => {
    const { ticket } = emailTicket();
    const e = messageAdded(ticket, messageFixture(ticket.id, 'Once', { sender: 'agent' }));
    await h.publish(e);
    await h.publish(e);
    expect(await mailRows(ticket.id)).toBe(1);
  });

  it('internal notes, customers\' messages and system messages are never mailed, nor asked about', async () => {
    const { ticket } = emailTicket();
    const quiet = [
      messageFixture(ticket.id, 'NOTE', { sender: 'agent', isInternal: true }),
      messageFixture(ticket.id, 'from the customer', { sender: 'customer' }),
      messageFixture(ticket.id, 'status changed', { sender: 'system' }),
    ];
    for (const m of quiet) await h.publish(messageAdded(ticket, m));
    expect(await mailRows(ticket.id)).toBe(0);
    expect(asked.filter((a) => a.ticketId === ticket.id)).toEqual([]);
    expect(received.some((m) => m.text?.includes('NOTE'))).toBe(false);
  });

  it('a reply on a ticket of another channel is not mailed; one ticketing does not know (no customer email) neither', async () => {
    const api = ticketFixture('cus_abcdefgh12345678', { channel: 'api' });
    await h.publish(messageAdded(api, messageFixture(api.id, 'api', { sender: 'agent' })));
    expect(asked.some((a) => a.ticketId === api.id)).toBe(false);
    const unknown = ticketFixture(null, { channel: 'email' });
    await h.publish(messageAdded(unknown, messageFixture(unknown.id, 'nobody', { sender: 'agent' })));
    expect(asked.some((a) => a.ticketId === unknown.id)).toBe(true);
    expect(await mailRows(api.id)).toBe(0);
    expect(await mailRows(unknown.id)).toBe(0);
  });
});
