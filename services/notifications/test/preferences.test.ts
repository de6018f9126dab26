/** A member's notification settings, and the email of each notification for members who turned it on. */
import { mkdtempSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import { eventually } from '@helpdesk/testing';
import { envelope, expectError, joinMember, startHarness, TEAM_A, TEAM_B, ticketFixture, type Harness } from './helpers';
import type { Partition } from '@helpdesk/contracts';

let h: Harness;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'notifications-prefs-'));
beforeAll(async () => {
  h = await startHarness({ dataDir });
}, 30_000);
afterAll(async () => {
  await h?.stop();
});

const P = '/teams/{team}/notifications/preferences';
const assign = (memberId: string, mode: Partition = 'test') => {
  const t = ticketFixture(null, { assignedTo: memberId, title: 'Refund <now>' });
  return envelope('ticket.updated', { ticket: t, changes: ['assignedTo'], previous: { assignedTo: null } }, { teamId: TEAM_A, mode });
};
const mailFiles = async () => (await readdir(path.join(dataDir, 'mail')).catch(() => [] as string[])).filter((f) => f.endsWith('.eml'));
const mailsTo = async (to: string) => {
  const out = [];
  for (const f of await mailFiles()) {
    const m = await simpleParser(await readFile(path.join(dataDir, 'mail', f)));
    if (m.to && !Array.isArray(m.to) && m.to.text === to) out.push(m);
  }
  return out;
};

test('email is off by default; turned on, each new notification (either partition) is emailed once with a text and an HTML part', async () => {
  const ann = await joinMember(h, TEAM_A, 'Ann Lee');
  expect((await h.api('GET', `${P}?userId=${ann.userId}`)).body.data).toEqual({ memberId: ann.id, email: false });
  await h.publish(assign(ann.id));
  await eventually('the notification', async () => (await h.svc.conn.collection('notifications').countDocuments({ memberId: ann.id })) === 1);

  const r = await h.api('PATCH', P, { body: { userId: ann.userId, email: true } });
  expect(r.status).toBe(200);
  expect(r.body.data).toEqual({ memberId: ann.id, email: true });
  expect((await h.eventsOf(r.requestId)).map((e) => [e.type, e.data])).toEqual([
    ['notification.preferences_updated', { preferences: { memberId: ann.id, email: true }, changes: ['email'], previous: { email: false } }],
  ]);
  // the setting is the member's, whatever the key's partition
  expect((await h.api('GET', `${P}?userId=${ann.id}`, { as: { mode: 'live' } })).body.data).toEqual({ memberId: ann.id, email: true });

  const e = assign(ann.id);
  await h.publish(e, e);
  await h.publish(assign(ann.id, 'live'));
  const mails = await eventually('two emails', async () => {
    const m = await mailsTo(ann.email);
    return m.length >= 2 ? m : null;
  });
  expect(mails).toHaveLength(2);
  const mail = mails.find((m) => m.text?.includes(e.data.ticket.id))!;
  expect(mail.subject).toBe(`You were assigned ticket ${e.data.ticket.id}`);
  expect(mail.text).toContain('Refund <now>');
  expect(mail.html).toContain('Refund &lt;now&gt;');

  // turned off again: no more email; the same value twice emits nothing
  const off = await h.api('PATCH', P, { body: { userId: ann.id, email: false } });
  expect(off.body.data).toEqual({ memberId: ann.id, email: false });
  const again = await h.api('PATCH', P, { body: { userId: ann.id, email: false } });
  expect(await h.eventsOf(again.requestId)).toEqual([]);
  await h.publish(assign(ann.id));
  await eventually('the notification', async () => (await h.svc.conn.collection('notifications').countDocuments({ memberId: ann.id })) === 4);
  expect(await h.svc.conn.collection('mails').countDocuments({ to: ann.email })).toBe(2);
});

test('bad inputs: missing or unknown userId, a non-boolean, an unknown field, another team, a publishable key', async () => {
  const bo = await joinMember(h, TEAM_A, 'Bo Peep');
  expectError(await h.api('GET', P, { as: { memberId: null } }), 400, 'parameter_missing', 'userId');
  expect((await h.api('GET', P, { as: { memberId: bo.id } })).body.data).toEqual({ memberId: bo.id, email: false }); // the key's own member
  expectError(await h.api('GET', `${P}?userId=nope`), 400, 'parameter_invalid', 'userId');
  expectError(await h.api('PATCH', P, { body: { email: true }, as: { memberId: null } }), 400, 'parameter_missing', 'userId');
  expectError(await h.api('PATCH', P, { body: { userId: bo.id } }), 400, 'parameter_missing', 'email');
  expectError(await h.api('PATCH', P, { body: { userId: bo.id, email: 'yes' } }), 400, 'parameter_invalid', 'email');
  expectError(await h.api('PATCH', P, { body: { userId: bo.id, email: true, sms: true } }), 400, 'parameter_invalid', 'sms');
  expectError(await h.api('PATCH', P, { body: { userId: 'mem_nobody00000001', email: true } }), 404, 'resource_not_found', 'userId');
  expectError(await h.api('PATCH', P, { body: { userId: bo.id, email: true }, as: { teamId: TEAM_B } }), 404, 'resource_not_found', 'userId');
  expectError(await h.api('GET', `${P}?userId=${bo.id}`, { as: { keyType: 'publishable' } }), 403, 'publishable_key_forbidden');
  expectError(await h.api('PATCH', P, { body: { userId: bo.id, email: true }, as: { keyType: 'publishable' } }), 403, 'publishable_key_write');
  expect((await h.api('GET', `${P}?userId=${bo.id}`)).body.data).toEqual({ memberId: bo.id, email: false });
});
