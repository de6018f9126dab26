/** The sign-in mail of `sign_in_link.requested` (docs/adr/0068): its link asked for at send time, once per event, never for an operator's link. */
import { readdir, readFile } from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import type { SignInLinkSnapshot } from '@helpdesk/contracts';
import { newId } from '@helpdesk/kit';
import { eventually } from '@helpdesk/testing';
import { startFakeWorkspace } from './fake-workspace';
import { envelope, startHarness, TEAM_A, type Harness } from './helpers';

const usable = new Set<string>();
let workspace: Awaited<ReturnType<typeof startFakeWorkspace>>;
let h: Harness;
let dir: string;

beforeAll(async () => {
  workspace = await startFakeWorkspace(new Map(), usable);
  dir = mkdtempSync(path.join(os.tmpdir(), 'notifications-sign-in-'));
  h = await startHarness({ workspaceUrl: workspace.url, dataDir: dir });
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await workspace?.close();
});

function link(email: string, fields: Partial<SignInLinkSnapshot> = {}): SignInLinkSnapshot {
  const l: SignInLinkSnapshot = {
    id: newId('signInLink'), memberId: newId('member'), email, delivery: 'mail',
    expiresAt: new Date(Date.now() + 15 * 60_000).toISOString(), createdAt: new Date().toISOString(), ...fields,
  };
  if (l.delivery === 'mail') usable.add(l.id);
  return l;
}
const requested = (l: SignInLinkSnapshot) => envelope('sign_in_link.requested', { signInLink: l, memberName: 'Ada <Agent>', teamName: 'Acme & Co' }, { teamId: TEAM_A, mode: 'live' });
const row = (to: string) => h.svc.conn.collection('mails').findOne({ to });
const linkCalls = (id: string) => workspace.calls.filter((c) => c.path === `/internal/sign-in-links/${id}/link`);

async function mailFileTo(to: string) {
  return eventually(`the mail to ${to}`, async () => {
    for (const name of (await readdir(path.join(dir, 'mail')).catch(() => [])).filter((f) => f.endsWith('.eml'))) {
      const mail = await simpleParser(await readFile(path.join(dir, 'mail', name)));
      if (mail.to && !Array.isArray(mail.to) && mail.to.text === to) return mail;
    }
    return undefined;
  });
}

test('is sent once per event to the member, with the link made at send time, the team, and how long it works', async () => {
  const l = link('ada@example.com');
  const e = requested(l);
  await h.publish(e);
  await h.publish(e); // redelivered
  const mail = await mailFileTo(l.email);
  expect(mail.subject).toBe('Sign in to Acme & Co');
  expect(mail.text).toContain('Hello Ada <Agent>,');
  expect(mail.text).toMatch(/https:\/\/app\.example\.com\/app\/sign-in\?token=hdsil_token\d+/);
  expect(mail.text).toMatch(/The link works once, for 1[45] minutes\./);
  expect(mail.html).toMatch(/<a href="https:\/\/app\.example\.com\/app\/sign-in\?token=hdsil_token\d+">Sign in to Acme &amp; Co<\/a>/);
  expect(mail.html).toContain('Hello Ada &lt;Agent&gt;,');
  expect(linkCalls(l.id).map((c) => c.teamId)).toEqual([TEAM_A]);
  expect(await row(l.email)).toMatchObject({ kind: 'sign_in', status: 'sent', attempts: 1, sourceEventId: e.id, signIn: { signInLinkId: l.id } });
  // the token is in the mail only, never in the outbox row
  expect(JSON.stringify(await row(l.email))).not.toContain('hdsil_');
});

test('a link used or expired before its mail went out cancels the mail; an operator\'s link is never mailed', async () => {
  const stale = link('late@example.com');
  usable.delete(stale.id);
  await h.publish(requested(stale));
  await eventually('the cancelled mail', async () => (await row(stale.email))?.status === 'cancelled');
  expect(await row(stale.email)).toMatchObject({ lastError: 'the sign-in link was used or has expired' });

  const handed = link('operator@example.com', { delivery: 'operator' });
  // published and handled (the harness waits for the bus and the consumer): nothing queued
  await h.publish(requested(handed));
  expect(await row(handed.email)).toBeNull();
  expect(linkCalls(handed.id)).toEqual([]);
});
