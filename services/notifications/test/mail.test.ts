/** Outgoing mail: the invitation of `member.invited`, over real SMTP (smtp-server) and as .eml files; once per event; retries. */
import { readdir, readFile } from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import type { InviteSnapshot } from '@helpdesk/contracts';
import { newId } from '@helpdesk/kit';
import { eventually } from '@helpdesk/testing';
import { startFakeWorkspace } from './fake-workspace';
import { envelope, startHarness, TEAM_A, type Harness } from './helpers';

const invites = new Map<string, InviteSnapshot>();
let workspace: Awaited<ReturnType<typeof startFakeWorkspace>>;

/** A real SMTP receiver on loopback; `refuse(n)` makes it answer 451 to the next n messages. */
const received: ParsedMail[] = [];
let refusals = 0;
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, _session, done) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', async () => {
      if (refusals > 0) {
        refusals--;
        return done(Object.assign(new Error('try again later'), { responseCode: 451 }));
      }
      received.push(await simpleParser(Buffer.concat(chunks)));
      done();
    });
  },
});

let h: Harness;
let files: Harness;
let filesDir: string;
beforeAll(async () => {
  workspace = await startFakeWorkspace(invites);
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
  const port = (smtp.server.address() as AddressInfo).port;
  h = await startHarness({ workspaceUrl: workspace.url, smtpUrl: `smtp://127.0.0.1:${port}?ignoreTLS=true`, mailRetryDelaysMs: [30, 30] });
  filesDir = mkdtempSync(path.join(os.tmpdir(), 'notifications-mail-'));
  files = await startHarness({ workspaceUrl: workspace.url, dataDir: filesDir });
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await files?.stop();
  await new Promise<void>((r) => smtp.close(() => r()));
  await workspace?.close();
});

function invite(email: string, fields: Partial<InviteSnapshot> = {}): InviteSnapshot {
  const i: InviteSnapshot = {
    id: newId('invite'), email, role: 'agent', status: 'pending', invitedBy: newId('member'),
    message: { status: 'queued', at: null, error: null }, expiresAt: '2031-05-07T10:00:00.000Z', createdAt: new Date().toISOString(), ...fields,
  };
  invites.set(i.id, i);
  return i;
}
const invited = (i: InviteSnapshot, teamName = 'Acme <Support>', inviterName: string | null = 'Ada Lovelace') =>
  envelope('member.invited', { invite: i, teamName, inviterName }, { teamId: TEAM_A });
const mailsTo = (to: string) => received.filter((m) => m.to && !Array.isArray(m.to) && m.to.text === to);
const reports = (inviteId: string) => workspace.calls.filter((c) => c.path === `/internal/invites/${inviteId}/message`).map((c) => c.body);
const row = (harness: Harness, to: string) => harness.svc.conn.collection('mails').findOne({ to });

describe('the invitation over SMTP', () => {
  test('is sent once per event with the link, the team and the inviter, in a text and an HTML part; the outcome is reported', async () => {
    const i = invite('new.person@example.com');
    const e = invited(i);
    await h.publish(e);
    await h.publish(e); // redelivered
    await eventually('the mail', () => mailsTo(i.email).length > 0);
    await eventually('the report', () => reports(i.id).length > 0);
    const [mail] = mailsTo(i.email);
    expect(mail.subject).toBe('Ada Lovelace invited you to join Acme <Support>');
    expect(mail.from?.value).toEqual([{ name: 'Helpdesk', address: 'no-reply@helpdesk.local' }]);
    expect(mail.text).toContain('Ada Lovelace invited you to join Acme <Support> on Helpdesk as agent.');
    expect(mail.text).toContain('https://app.example.com/invites/accept?token=hdinv_token');
    expect(mail.text).toContain('Wed, 07 May 2031');
    expect(mail.html).toContain('join <strong>Acme &lt;Support&gt;</strong>');
    expect(mail.html).toMatch(/<a href="https:\/\/app\.example\.com\/invites\/accept\?token=hdinv_token\d+">Accept the invitation<\/a>/);
    expect(workspace.calls.filter((c) => c.path === `/internal/invites/${i.id}/link`).map((c) => c.teamId)).toEqual([TEAM_A]);
    expect(reports(i.id)).toEqual([{ status: 'sent' }]);
    expect(await row(h, i.email)).toMatchObject({ status: 'sent', attempts: 1, lastError: null, sourceEventId: e.id });
    // nothing more arrives for the redelivered event
    const later = invite('later@example.com');
    await h.publish(invited(later));
    await eventually('a later mail', () => mailsTo(later.email).length > 0);
    expect(mailsTo(i.email)).toHaveLength(1);
  });

  test('a refused send is retried; the inviter-less invitation names the team administrator', async () => {
    refusals = 1;
    const i = invite('retry@example.com');
    await h.publish(invited(i, 'Beta', null));
    await eventually('the retried mail', () => mailsTo(i.email).length > 0);
    expect(mailsTo(i.email)[0].subject).toBe('A team administrator invited you to join Beta');
    await eventually('sent', async () => (await row(h, i.email))?.status === 'sent');
    expect(await row(h, i.email)).toMatchObject({ status: 'sent', attempts: 2 });
    // each attempt asked for a fresh link
    expect(workspace.calls.filter((c) => c.path === `/internal/invites/${i.id}/link`)).toHaveLength(2);
  });

  test('after the last retry the mail is failed and the failure is reported with why', async () => {
    refusals = 3;
    const i = invite('never@example.com');
    await h.publish(invited(i));
    await eventually('failed', async () => (await row(h, i.email))?.status === 'failed');
    await eventually('the report', () => reports(i.id).length > 0);
    expect(mailsTo(i.email)).toEqual([]);
    expect(await row(h, i.email)).toMatchObject({ status: 'failed', attempts: 3, lastError: expect.stringContaining('try again later') });
    expect(reports(i.id)).toEqual([{ status: 'failed', error: expect.stringContaining('try again later') }]);
  });

  test('an invite that is no longer pending (revoked, accepted) cancels its mail: nothing is sent or reported', async () => {
    const i = invite('gone@example.com');
    invites.delete(i.id);
    await h.publish(invited(i));
    await eventually('cancelled', async () => (await row(h, i.email))?.status === 'cancelled');
    expect(mailsTo(i.email)).toEqual([]);
    expect(reports(i.id)).toEqual([]);
  });
});

describe('the invitation as a file', () => {
  test('without SMTP_URL each message is one .eml under DATA_DIR/mail that a mail parser opens', async () => {
    const i = invite('file.person@example.com');
    await files.publish(invited(i, 'Files Co'));
    const dir = path.join(filesDir, 'mail');
    const name = await eventually('the file', async () => (await readdir(dir).catch(() => [])).find((f) => f.endsWith('.eml')));
    const mail = await simpleParser(await readFile(path.join(dir, name)));
    expect(mail.to && !Array.isArray(mail.to) && mail.to.text).toBe(i.email);
    expect(mail.subject).toBe('Ada Lovelace invited you to join Files Co');
    expect(mail.text).toContain('https://app.example.com/invites/accept?token=');
    expect(mail.html).toContain('Accept the invitation');
    expect(mail.headers.get('x-helpdesk-mail-id')).toBe(name.replace(/\.eml$/, ''));
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
