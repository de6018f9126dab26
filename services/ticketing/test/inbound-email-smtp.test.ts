/**
 * The inbound SMTP listener's transport settings (docs/adr/0041): STARTTLS only when a key and
 * certificate are configured, the size limit, recipients of other domains refused. (What mail
 * becomes is tested over the whole platform: e2e/platform/email-*.test.ts.)
 */
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import type { SMTPServer } from 'smtp-server';
import { logger, startServiceHarness, tokens, type ServiceHarness } from '@helpdesk/testing';
import { startTicketing, type TicketingRules } from '../src';
import { smtpListener } from '../src/inbound-email/smtp';
import { FakeCustomers } from './fake-customers';
import { TEAM_A } from './helpers';

// A self-signed certificate for `localhost`, for this test only (valid until 2126).
const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg+0ULU2zmvWCcDrgu
6u7C/0q6tT4CCV6wRHvSMGR6OUmhRANCAATY2Gvpbh7eok81LpRbtp/deC7i+6hn
YpSbFy48S5bRMpoNx1/DdJ4j+YeG+L6NS7NErFBJLAdBEaPpjzbGddtc
-----END PRIVATE KEY-----`;
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBfjCCASWgAwIBAgIUNxNMGySqqvireb8Yf+nLOKa817wwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyNDA2MTgwNFoYDzIxMjYxMDMx
MDYxODA0WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAATY2Gvpbh7eok81LpRbtp/deC7i+6hnYpSbFy48S5bRMpoNx1/DdJ4j
+YeG+L6NS7NErFBJLAdBEaPpjzbGddtco1MwUTAdBgNVHQ4EFgQUlF6+pHwk/8Qd
NREAWCieMrV3nDswHwYDVR0jBBgwFoAUlF6+pHwk/8QdNREAWCieMrV3nDswDwYD
VR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNHADBEAiAUpmk5aOG+9Tah2NySPpme
GjOmAj0rkLeRuP2Syu32TQIgVenBh2VQFJO+n1ayxlAcs2nplPlYoovRcY4M5/u5
pd8=
-----END CERTIFICATE-----`;

const DOMAIN = 'inbound.example.test';
const MAX_BYTES = 4096;

let customers: FakeCustomers;
let h: ServiceHarness<TicketingRules>;
let tlsPort: number;
let plain: SMTPServer;
let plainPort: number;

beforeAll(async () => {
  customers = await new FakeCustomers(tokens, logger).start();
  h = await startServiceHarness(
    (opts) =>
      startTicketing({
        ...opts,
        customersUrl: customers.url,
        inboundEmail: { domain: DOMAIN, maxBytes: MAX_BYTES, smtp: { host: '127.0.0.1', port: 0, tls: { key: TEST_KEY, cert: TEST_CERT } }, http: null },
      }),
    { observe: ['ticket.*'] },
  );
  tlsPort = (await h.svc.rules.inboundEmail.listening!).smtpPort!;
  // The same listener without a certificate.
  plain = smtpListener(h.svc.rules.inboundEmail, h.svc.rules.inboundEmail.config, { host: '127.0.0.1', port: 0 }, logger);
  await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
  plainPort = (plain.server.address() as AddressInfo).port;
}, 60_000);
afterAll(async () => {
  await new Promise<void>((r) => plain?.close(() => r()));
  await h?.stop();
  await customers?.stop();
});

/** An auto-reply: accepted and ignored without asking the customers service (faked here). */
const autoReply = { from: 'away@customer.example', to: `${TEAM_A}.test@${DOMAIN}`, subject: 'Away', text: 'I am away', headers: { 'Auto-Submitted': 'auto-replied' } };
const transport = (port: number, extra: Record<string, unknown> = {}) =>
  nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, tls: { rejectUnauthorized: false }, ...extra });

test('with a key and certificate, STARTTLS is offered and mail is taken over TLS', async () => {
  const info = await transport(tlsPort, { requireTLS: true }).sendMail(autoReply);
  expect(info.response).toMatch(/^250 /);
  expect(h.events).toEqual([]);
});

test('without them, STARTTLS is not offered (a client that requires TLS gives up)', async () => {
  await expect(transport(plainPort, { requireTLS: true }).sendMail(autoReply)).rejects.toThrow(/STARTTLS/);
  const info = await transport(plainPort, { ignoreTLS: true }).sendMail(autoReply);
  expect(info.response).toMatch(/^250 /);
});

test('a mail over the size limit is refused with 552; other domains\' recipients with 550', async () => {
  await expect(transport(tlsPort).sendMail({ ...autoReply, text: 'x'.repeat(MAX_BYTES * 2) })).rejects.toMatchObject({ responseCode: 552 });
  await expect(transport(tlsPort).sendMail({ ...autoReply, to: `${TEAM_A}@elsewhere.example` })).rejects.toMatchObject({ responseCode: 550 });
  expect(h.events).toEqual([]);
});
