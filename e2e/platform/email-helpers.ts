import type { AddressInfo } from 'node:net';
import { eventually } from '@helpdesk/testing';
import { simpleParser, type ParsedMail } from 'mailparser';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { SMTPServer } from 'smtp-server';
import { startTestPlatform, type TestPlatform } from '../support/platform';

export const DOMAIN = 'inbound.example.test';
/** Small enough that an oversize mail is cheap to send. */
export const MAX_BYTES = 256 * 1024;

/** A mail server standing in for the customers' (the notifications service sends replies to it). */
export class MailSink {
  private constructor(
    private readonly server: SMTPServer,
    readonly url: string,
    /** Every mail received, parsed, in order of arrival. */
    readonly received: ParsedMail[],
  ) {}

  static async start(): Promise<MailSink> {
    const received: ParsedMail[] = [];
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      onData(stream, _session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          simpleParser(Buffer.concat(chunks)).then(
            (m) => {
              received.push(m);
              callback();
            },
            (err: Error) => callback(err),
          );
        });
      },
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return new MailSink(server, `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}?ignoreTLS=true`, received);
  }

  /** The first mail `pred` accepts, once it has arrived. */
  waitFor(what: string, pred: (m: ParsedMail) => boolean): Promise<ParsedMail> {
    return eventually(what, () => this.received.find(pred));
  }

  stop(): Promise<void> {
    return new Promise((r) => this.server.close(() => r()));
  }
}

export interface EmailPlatform {
  tp: TestPlatform;
  sink: MailSink;
  smtpPort: number;
  httpPort: number;
  /** The first team's test-partition address, and its reply address for a ticket. */
  address: string;
  replyAddress(ticketId: string): string;
  /** Sends over SMTP to the inbound listener with Nodemailer, as a customer's mail server would. */
  send(mail: SendMailOptions): Promise<SMTPTransport.SentMessageInfo>;
  stop(): Promise<void>;
}

/** The platform with its inbound SMTP and webhook listeners on free ports, sending its own mail to a sink. */
export async function startEmailPlatform(): Promise<EmailPlatform> {
  const sink = await MailSink.start();
  const tp = await startTestPlatform({
    smtpUrl: sink.url,
    inboundEmail: { domain: DOMAIN, maxBytes: MAX_BYTES, smtp: { host: '127.0.0.1', port: 0 }, http: { host: '127.0.0.1', port: 0 } },
  });
  const ports = await tp.platform.ticketing.rules.inboundEmail.listening!;
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: ports.smtpPort!, secure: false, ignoreTLS: true });
  const local = `${tp.team.teamId}.test`;
  return {
    tp,
    sink,
    smtpPort: ports.smtpPort!,
    httpPort: ports.httpPort!,
    address: `${local}@${DOMAIN}`,
    replyAddress: (ticketId) => `${local}+${ticketId}@${DOMAIN}`,
    send: (mail) => transport.sendMail(mail),
    async stop() {
      transport.close();
      await tp.stop();
      await sink.stop();
    },
  };
}

/** The ticket id the SMTP listener answered with (`250 2.0.0 tkt_…`). */
export const ticketIdOf = (info: { response: string }) => /tkt_[A-Za-z0-9]+/.exec(info.response)?.[0] ?? null;

/** How many tickets the first team's test partition holds. */
export async function ticketTotal(tp: TestPlatform): Promise<number> {
  const res = await tp.api.get(`${tp.teamPath}/tickets?pageSize=1`);
  expect(res.status).toBe(200);
  return res.body.meta.pagination.total;
}

/** A unique customer address per test. */
export const customerEmail = (name: string) => `${name}.${Math.random().toString(36).slice(2, 8)}@customer.example`;
