/**
 * Inbound mail's limits (docs/adr/0063): per sender and per partition each hour, counted in
 * ticketing's database (replicas agree), SMTP answering 451 4.7.1 and the webhook 429 with
 * Retry-After; one flooding address opens at most its limit and leaves other senders untouched.
 * Slow clients: headers (SMTP: each command) within the limit, a body at a minimum rate; 30 slow
 * connections are closed while another client is served.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import nodemailer from 'nodemailer';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { expectOk } from './helpdesk-helpers';

const DOMAIN = 'limits.example.test';
const PER_SENDER = 5;
const PER_TEAM = 12;
const HEADERS_MS = 1000;

let tp: TestPlatform;
let smtpPort: number;
let httpPort: number;
let secret: string;
beforeAll(async () => {
  tp = await startTestPlatform({
    inboundEmail: {
      domain: DOMAIN,
      maxBytes: 64 * 1024,
      smtp: { host: '127.0.0.1', port: 0 },
      http: { host: '127.0.0.1', port: 0 },
      limits: { perSenderPerHour: PER_SENDER, perTeamPerHour: PER_TEAM },
      slowClients: { headersMs: HEADERS_MS, minBytesPerSecond: 1024 },
    },
  });
  ({ smtpPort, httpPort } = (await tp.platform.ticketing.rules.inboundEmail.listening!) as { smtpPort: number; httpPort: number });
  secret = expectOk(await tp.api.post(`${tp.teamPath}/inbound-email/secret`), 201).secret;
}, 60_000);
afterAll(async () => tp?.stop(), 60_000);

const mime = (from: string, subject: string) =>
  [`From: <${from}>`, `To: support@acme.example`, `Subject: ${subject}`, `Message-ID: <${randomBytes(8).toString('hex')}@sender.example>`, 'Content-Type: text/plain; charset=utf-8', '', 'Please help.', ''].join('\r\n');

const postMail = async (from: string, subject: string, team = { teamId: tp.team.teamId, secret }) => {
  const res = await fetch(`http://127.0.0.1:${httpPort}/inbound-email/${team.teamId}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'message/rfc822', authorization: `Bearer ${team.secret}` },
    body: mime(from, subject),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as any };
};

const smtp = () => nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
const sendMail = async (from: string, subject: string): Promise<{ ok: true } | { ok: false; code: number; text: string }> => {
  const transport = smtp();
  try {
    await transport.sendMail({ envelope: { from, to: [`${tp.team.teamId}.test@${DOMAIN}`] }, raw: mime(from, subject) });
    return { ok: true };
  } catch (err) {
    const e = err as { responseCode: number; response: string };
    return { ok: false, code: e.responseCode, text: e.response };
  } finally {
    transport.close();
  }
};

const ticketsTitled = async (prefix: string): Promise<number> => {
  const res = expectOk(await tp.api.get(`${tp.teamPath}/tickets?pageSize=100&search=${encodeURIComponent(prefix)}`), 200) as Array<{ title: string }>;
  return res.filter((t) => t.title.startsWith(prefix)).length;
};

test('one address flooding the webhook and SMTP opens at most its limit; other senders still get in until the team limit', async () => {
  // Webhook: the sender's first five open tickets, the rest are 429 with Retry-After and write nothing.
  const answers = [];
  for (let i = 0; i < PER_SENDER + 3; i++) answers.push(await postMail('flood@spam.example', `webflood ${i}`));
  expect(answers.map((a) => a.status)).toEqual([...Array(PER_SENDER).fill(201), 429, 429, 429]);
  const refused = answers[PER_SENDER]!;
  expect(refused.body.error).toMatchObject({ code: 'rate_limit_exceeded' });
  expect(refused.body.error.message).toMatch(/flood@spam\.example/);
  expect(Number(refused.retryAfter)).toBeGreaterThan(0);
  expect(Number(refused.retryAfter)).toBeLessThanOrEqual(3600);
  expect(await ticketsTitled('webflood')).toBe(PER_SENDER);
  // Another sender is untouched.
  expect((await postMail('pat@customer.example', 'webother 1')).status).toBe(201);

  // SMTP: the same rule, 451 4.7.1 (the sending server retries later); the flooder's refusals do not use up the team's allowance.
  const smtpFlood = [];
  for (let i = 0; i < PER_SENDER + 2; i++) smtpFlood.push(await sendMail('smtpflood@spam.example', `smtpflood ${i}`));
  expect(smtpFlood.slice(0, PER_SENDER).every((r) => r.ok)).toBe(true);
  for (const r of smtpFlood.slice(PER_SENDER)) expect(r).toMatchObject({ ok: false, code: 451, text: expect.stringMatching(/4\.7\.1 Too many mails from smtpflood@spam\.example/) });
  expect(await ticketsTitled('smtpflood')).toBe(PER_SENDER);

  // 6 + 5 mails so far: one more fits the team's 12, then the team limit refuses any sender.
  expect((await sendMail('sam@customer.example', 'smtpother 1')).ok).toBe(true);
  expect(await sendMail('kim@customer.example', 'smtpother 2')).toMatchObject({ ok: false, code: 451, text: expect.stringMatching(/4\.7\.1 This team has received too many mails/) });
  const teamLimited = await postMail('lee@customer.example', 'webother 2');
  expect(teamLimited.status).toBe(429);
  expect(await ticketsTitled('webother')).toBe(1);
  expect(await ticketsTitled('smtpother')).toBe(1);
});

/** A connection that sends `first` and then nothing more; resolves with when it was closed (ms after opening). */
function holdOpen(port: number, first: string): Promise<number> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const socket = net.connect(port, '127.0.0.1', () => socket.write(first));
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(Date.now() - t0));
    // Bounded: the test's own guard.
    setTimeout(() => socket.destroy(), 20_000).unref();
  });
}

test('30 slow connections (headers, body, SMTP commands) are closed while another client is served', async () => {
  const path = `/inbound-email/${tp.team.teamId}/messages`;
  const slow = [
    ...Array.from({ length: 10 }, () => holdOpen(httpPort, `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `)),
    ...Array.from({ length: 10 }, () =>
      holdOpen(httpPort, `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${secret}\r\nContent-Type: message/rfc822\r\nContent-Length: 60000\r\n\r\nFrom: a`),
    ),
    ...Array.from({ length: 10 }, () => holdOpen(smtpPort, '')),
  ];
  // Served meanwhile (another team: the first one used up its hour above).
  const other = await tp.createTeam();
  const otherSecret = expectOk(await tp.api.withKey(other.sk_test).post(`/teams/${other.teamId}/inbound-email/secret`), 201).secret as string;
  expect((await postMail('busy@customer.example', 'served while slow', { teamId: other.teamId, secret: otherSecret })).status).toBe(201);
  const closedAfter = await Promise.all(slow);
  for (const ms of closedAfter) expect(ms).toBeLessThan(10_000);
  expect(Math.min(...closedAfter)).toBeGreaterThanOrEqual(HEADERS_MS - 100);
}, 30_000);
