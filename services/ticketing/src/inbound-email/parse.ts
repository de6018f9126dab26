import { charLength, CONTENT_MAX, NAME_MAX, TITLE_MAX } from '@helpdesk/contracts';
import { convert } from 'html-to-text';
import { simpleParser, type AddressObject, type HeaderValue } from 'mailparser';
import type { MailAttachmentRecord } from './model';

/** The mail could not be read as a message: the HTTP endpoint answers 400, the SMTP listener 550; nothing is written. */
export class MalformedMail extends Error {}

/** An inbound mail as the ticket rules need it (docs/adr/0041). */
export interface InboundMail {
  /** The Message-ID header as sent (`<…>`); null when the mail has none. */
  messageId: string | null;
  /** In-Reply-To and References, oldest first. */
  replyTo: string[];
  fromAddress: string;
  fromName: string | null;
  /** The subject shortened to the ticket title's 255 characters ("(no subject)" when empty). */
  title: string;
  /** The first customer message: the text part, else the HTML converted to text, else the documented fallback. */
  content: string;
  /** `content` without the quoted history a mail client appends to a reply: what a continued ticket gets. */
  replyContent: string;
  attachments: MailAttachmentRecord[];
  /** Why the mail is an automatic one that must never open or continue a ticket (a loop); null: a person's mail. */
  automatic: string | null;
}

const NO_SUBJECT = '(no subject)';
const TRUNCATED = '\n\n[This email was shortened to fit a message.]';
/** Header values that mark a mail no person wrote (RFC 3834, and the de-facto Precedence values). */
const BULK_PRECEDENCE = new Set(['bulk', 'junk', 'list', 'auto_reply']);
const DAEMON_RE = /^(mailer-daemon|postmaster|mail-daemon|no-?reply|bounces?)([+-].*)?$/i;

const QUOTE_HEADER_RE = /^On .{1,400} wrote:\s*$/;
const ORIGINAL_MESSAGE_RE = /^-{2,}\s*(Original Message|Forwarded message)\s*-{2,}\s*$/i;

/**
 * A reply's text without the history its mail client quoted below it: from an "On … wrote:" line
 * (one line or wrapped over two) followed only by `>` lines, from an "-----Original Message-----"
 * line, or a trailing block of `>` lines. Conservative: text between quotes (an inline answer) stays.
 */
export function withoutQuotedHistory(text: string): string {
  const lines = text.split('\n');
  const onlyQuotesAfter = (i: number) => lines.slice(i).every((l) => l.trim() === '' || l.trimStart().startsWith('>'));
  let cut = lines.length;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (ORIGINAL_MESSAGE_RE.test(line)) {
      cut = i;
      break;
    }
    const header = QUOTE_HEADER_RE.test(line) ? 1 : i + 1 < lines.length && QUOTE_HEADER_RE.test(`${line} ${lines[i + 1].trim()}`) ? 2 : 0;
    if (header && onlyQuotesAfter(i + header)) {
      cut = i;
      break;
    }
  }
  if (cut === lines.length) {
    // A trailing block of quoted lines with no header.
    let i = lines.length;
    while (i > 0 && (lines[i - 1].trim() === '' || lines[i - 1].trimStart().startsWith('>'))) i--;
    if (lines.slice(i).some((l) => l.trimStart().startsWith('>'))) cut = i;
  }
  const kept = lines.slice(0, cut).join('\n').trim();
  return kept || text;
}

/** At most `max` characters (code points), ending in `…` when cut. */
export function shorten(s: string, max: number): string {
  if (charLength(s) <= max) return s;
  return `${[...s].slice(0, max - 1).join('')}…`;
}

const headerText = (v: HeaderValue | undefined): string | null => {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'object' && 'value' in v && typeof (v as { value: unknown }).value === 'string') return (v as { value: string }).value;
  return String(v);
};
const idsOf = (v: string | string[] | undefined) => (v === undefined ? [] : (Array.isArray(v) ? v : v.split(/\s+/)).filter((s) => s.includes('@')));

/** Why this mail is automatic (an auto-reply, a bounce, a list), or null. */
function automaticReason(headers: Map<string, HeaderValue>, fromAddress: string | null, contentType: string | null, envelopeFrom: string | null | undefined): string | null {
  if (envelopeFrom === '' || envelopeFrom === '<>') return 'null sender (a bounce)';
  const autoSubmitted = headerText(headers.get('auto-submitted'))?.split(';')[0].trim().toLowerCase();
  if (autoSubmitted && autoSubmitted !== 'no') return `Auto-Submitted: ${autoSubmitted}`;
  const precedence = headerText(headers.get('precedence'))?.trim().toLowerCase();
  if (precedence && BULK_PRECEDENCE.has(precedence)) return `Precedence: ${precedence}`;
  if (headers.has('x-autoreply') || headers.has('x-autorespond')) return 'X-Autoreply';
  if (contentType?.toLowerCase().startsWith('multipart/report')) return 'a delivery report';
  if (fromAddress && DAEMON_RE.test(fromAddress.split('@')[0])) return `sender ${fromAddress}`;
  return null;
}

/** A message's limit counts UTF-16 units (zod's max): a longer body is cut on a code point, with a note. */
const fitMessage = (content: string) =>
  content.length > CONTENT_MAX ? `${[...content.slice(0, CONTENT_MAX - TRUNCATED.length - 1)].join('').replace(/[\uD800-\uDBFF]$/, '')}${TRUNCATED}` : content;

/**
 * Parses raw MIME. A mail without a header block or without a From address is malformed (nothing
 * a ticket could be made of). `envelopeFrom`: SMTP's MAIL FROM ('' for the null sender `<>`).
 */
export async function parseInboundMail(raw: Buffer, envelopeFrom?: string | null): Promise<InboundMail> {
  let parsed;
  try {
    // The HTML part is converted below with html-to-text's own options, not mailparser's.
    parsed = await simpleParser(raw, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true });
  } catch (err) {
    throw new MalformedMail(`The message could not be parsed as MIME: ${(err as Error).message}`);
  }
  if (parsed.headers.size === 0) throw new MalformedMail('The message has no header block (expected RFC 5322 headers, a blank line, then the body).');
  const from = (parsed.from as AddressObject | undefined)?.value.find((a) => a.address);
  const fromAddress = from?.address?.trim().toLowerCase() ?? null;
  const contentType = headerText(parsed.headers.get('content-type'));
  const automatic = automaticReason(parsed.headers, fromAddress, contentType, envelopeFrom);
  if (!fromAddress && !automatic) throw new MalformedMail('The message has no From address.');

  const attachments: MailAttachmentRecord[] = parsed.attachments.map((a) => ({ filename: a.filename ?? null, contentType: a.contentType, size: a.size }));
  const html = typeof parsed.html === 'string' ? parsed.html : null;
  let content = parsed.text?.trim() || (html ? convert(html, { wordwrap: false, selectors: [{ selector: 'img', format: 'skip' }] }).trim() : '');
  let replyContent = content && withoutQuotedHistory(content);
  if (!content) {
    // The documented fallback (docs/adr/0041): a mail with no text still opens its ticket.
    const names = attachments.map((a) => `${a.filename ?? 'unnamed'} (${a.size} bytes)`);
    content = names.length ? `(This email had no text. Attachments: ${names.join(', ')})` : '(This email had no text.)';
    replyContent = content;
  } else if (attachments.length) {
    const named = `\n\nAttachments: ${attachments.map((a) => `${a.filename ?? 'unnamed'} (${a.size} bytes)`).join(', ')}`;
    content += named;
    replyContent += named;
  }

  const subject = (parsed.subject ?? '').replace(/\s+/g, ' ').trim();
  return {
    messageId: parsed.messageId ?? null,
    replyTo: [...idsOf(parsed.references), ...idsOf(parsed.inReplyTo)],
    fromAddress: fromAddress ?? '',
    fromName: from?.name?.trim() ? shorten(from.name.trim(), NAME_MAX) : null,
    title: shorten(subject || NO_SUBJECT, TITLE_MAX),
    content: fitMessage(content),
    replyContent: fitMessage(replyContent),
    attachments,
    automatic,
  };
}
