import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';

/** One message as every transport takes it: a plain-text and an HTML part. */
export interface OutgoingMail {
  id: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** A reply to a customer's mail (docs/adr/0041): its own Message-ID, the thread it answers, where answers go. */
  threading?: { messageId: string; inReplyTo: string | null; references: string[]; replyTo: string };
}

/** Where outgoing mail goes: one interface, SMTP or files (docs/adr/0020). */
export interface MailTransport {
  readonly kind: 'smtp' | 'files';
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

const message = (m: OutgoingMail) => ({
  from: m.from,
  to: m.to,
  subject: m.subject,
  text: m.text,
  html: m.html,
  messageId: m.threading?.messageId ?? `<${m.id}@helpdesk.local>`,
  ...(m.threading
    ? { inReplyTo: m.threading.inReplyTo ?? undefined, references: m.threading.references, replyTo: m.threading.replyTo }
    : {}),
  headers: { 'X-Helpdesk-Mail-Id': m.id },
});

/** SMTP through Nodemailer (`smtp://user:pass@host:port`, `smtps://…`), e.g. Mailpit in docker-compose. */
export function smtpTransport(url: string): MailTransport {
  const t = nodemailer.createTransport(url);
  return {
    kind: 'smtp',
    async send(m) {
      await t.sendMail(message(m));
    },
    close: () => t.close(),
  };
}

/**
 * Files: one RFC 5322 `.eml` per message under `dir` (`<mail id>.eml`), built by Nodemailer's stream
 * transport, so any mail client opens it. Written to a temporary name first: a reader never sees half a file.
 */
export function fileTransport(dir: string): MailTransport {
  const t = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  return {
    kind: 'files',
    async send(m) {
      const info = await t.sendMail(message(m));
      await mkdir(dir, { recursive: true });
      const file = path.join(dir, `${m.id}.eml`);
      await writeFile(`${file}.tmp`, info.message as Buffer);
      await rename(`${file}.tmp`, file);
    },
    close: () => t.close(),
  };
}

/** SMTP when `smtpUrl` is set, files under `<dataDir>/mail` otherwise. */
export const createMailTransport = (opts: { smtpUrl?: string; dataDir: string }): MailTransport =>
  opts.smtpUrl ? smtpTransport(opts.smtpUrl) : fileTransport(path.join(opts.dataDir, 'mail'));
