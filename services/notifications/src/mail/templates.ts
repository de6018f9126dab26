import type { InvitationMail, NotificationMail, ReplyMail, SignInMail } from './model';

/** A rendered message: subject, plain text and HTML. */
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const day = (iso: string) => new Date(iso).toUTCString().replace(/ \d\d:\d\d:\d\d GMT$/, '');

/** The invitation: the team's name, who invites, the role, the link and until when it works. */
export function invitationMail(i: InvitationMail, acceptUrl: string): RenderedMail {
  const who = i.inviterName ?? 'A team administrator';
  const subject = `${who} invited you to join ${i.teamName}`;
  const text = [
    `${who} invited you to join ${i.teamName} on Helpdesk as ${i.role}.`,
    '',
    'Accept the invitation:',
    acceptUrl,
    '',
    `The link works until ${day(i.expiresAt)} and only once. If you did not expect this invitation, ignore this message.`,
  ].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family: sans-serif">',
    `<p>${escapeHtml(who)} invited you to join <strong>${escapeHtml(i.teamName)}</strong> on Helpdesk as ${escapeHtml(i.role)}.</p>`,
    `<p><a href="${escapeHtml(acceptUrl)}">Accept the invitation</a></p>`,
    `<p style="color:#666">The link works until ${escapeHtml(day(i.expiresAt))} and only once. If you did not expect this invitation, ignore this message.</p>`,
    '</body></html>',
  ].join('\n');
  return { subject, text, html };
}

/** The sign-in link (docs/adr/0068): the team, the link, how long it works, and what to do if it was not you. */
export function signInMail(s: SignInMail, url: string): RenderedMail {
  const subject = `Sign in to ${s.teamName}`;
  const minutes = Math.max(1, Math.round((Date.parse(s.expiresAt) - Date.now()) / 60_000));
  const notYou = 'If you did not ask to sign in, ignore this message: nobody can sign in without this link.';
  const text = [
    `Hello ${s.memberName},`,
    '',
    `Sign in to ${s.teamName} on Helpdesk:`,
    url,
    '',
    `The link works once, for ${minutes} minutes. ${notYou}`,
  ].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family: sans-serif">',
    `<p>Hello ${escapeHtml(s.memberName)},</p>`,
    `<p><a href="${escapeHtml(url)}">Sign in to ${escapeHtml(s.teamName)}</a></p>`,
    `<p style="color:#666">The link works once, for ${minutes} minutes. ${escapeHtml(notYou)}</p>`,
    '</body></html>',
  ].join('\n');
  return { subject, text, html };
}

/** Why the recipient gets a notification's email: a member's settings, or a customer's own chat sign-up (docs/adr/0040). */
const footerOf = (n: NotificationMail) =>
  n.type === 'customer_confirmation'
    ? 'You get this email because this address was given in a chat on our support site. If that was not you, ignore this message.'
    : 'You get this email because notification emails are on in your notification settings.';

/** A notification's email: its title, its text, and the ticket it is about. */
export function notificationMail(n: NotificationMail): RenderedMail {
  const about = n.ticketId ? `Ticket: ${n.ticketId}` : null;
  const footer = footerOf(n);
  const text = [n.title, '', n.body, ...(about ? ['', about] : []), '', footer].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family: sans-serif">',
    `<p><strong>${escapeHtml(n.title)}</strong></p>`,
    `<p>${escapeHtml(n.body)}</p>`,
    ...(about ? [`<p>${escapeHtml(about)}</p>`] : []),
    `<p style="color:#666">${escapeHtml(footer)}</p>`,
    '</body></html>',
  ].join('\n');
  return { subject: n.title, text, html };
}

/**
 * An agent's public reply to the customer (docs/adr/0041): the reply's text as the agent wrote it,
 * signed with the agent's name and the team's; the subject answers the ticket's ("Re: …").
 */
export function replyMail(r: ReplyMail): RenderedMail {
  const signature = [r.senderName, r.thread.fromName].filter((s): s is string => !!s).join(', ');
  const text = [r.content, ...(signature ? ['', `— ${signature}`] : [])].join('\n');
  const paragraphs = r.content.split(/\n{2,}/).map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`);
  const html = [
    '<!doctype html><html><body style="font-family: sans-serif">',
    ...paragraphs,
    ...(signature ? [`<p style="color:#666">— ${escapeHtml(signature)}</p>`] : []),
    '</body></html>',
  ].join('\n');
  return { subject: r.thread.subject, text, html };
}
