import type { EventEnvelope } from '@helpdesk/contracts';
import { eventually } from '@helpdesk/testing';
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { expectError, expectOk, ISO } from './helpdesk-helpers';
import { billingEventLog } from './workspace-billing-helpers';
import { addMember, WorkspaceEvents, type TestMember } from './workspace-helpers';

let tp: TestPlatform;
let team: TeamKeys;
let admin: TestMember;
let billingEvents: EventEnvelope<any>[] = [];
let settle: () => Promise<void>;

const path = (p: string) => `/teams/${team.teamId}${p}`;
const getSubscription = (key = team.sk_test) => tp.api.get(path('/billing/subscription'), { key });
const openPortal = (body: unknown, key = team.sk_test) => tp.api.post(path('/billing/portal'), body, { key });
const RETURN_URL = 'https://app.example.com/settings/billing?tab=plan';
const PORTAL_URL = /^http:\/\/127\.0\.0\.1:8080\/billing\/portal\/([0-9a-f-]{36})\/(bps_[A-Za-z0-9_-]{43})$/;

/** The portal page's URL on this test platform's gateway (the service is configured with `npm start`'s). */
const onGateway = (url: string) => `${new URL(tp.baseUrl).origin}${new URL(url).pathname}`;
const submit = (pageUrl: string, form: Record<string, string>) =>
  fetch(pageUrl, { method: 'POST', body: new URLSearchParams(form), redirect: 'manual' });

async function newPortalPage(returnUrl = RETURN_URL): Promise<string> {
  const portal = expectOk(await openPortal({ returnUrl }), 200);
  return onGateway(portal.url);
}

beforeAll(async () => {
  tp = await startTestPlatform();
  team = await tp.createTeam('Billing Corp');
  admin = await addMember(tp, await WorkspaceEvents.start(tp), team, 'admin');
  ({ events: billingEvents, settle } = await billingEventLog(tp));
}, 60_000);
afterAll(async () => {
  await tp?.stop();
}, 60_000);

describe('billing', () => {
  it('a new team is on the free plan, active, with its members counted; test and live keys see the same subscription', async () => {
    const members = expectOk(await tp.api.get(path('/members'), { key: team.sk_test, query: { pageSize: '100' } }), 200);
    const sub = expectOk(await getSubscription(), 200);
    expect(sub).toEqual({ object: 'subscription', status: 'active', plan: 'free', memberCount: members.length, currentPeriodEnd: null, cancelAtPeriodEnd: false });
    expect(sub.memberCount).toBe(2);
    expect(expectOk(await getSubscription(team.sk_live), 200)).toEqual(sub);
    expect(expectOk(await tp.api.get('/auth/whoami', { key: team.sk_test }), 200).subscriptionStatus).toBe('active');
  });

  it('opens a portal session whose page shows the plans and chooses one: billing.subscription_updated, the subscription and whoami follow', async () => {
    const portal = expectOk(await openPortal({ returnUrl: RETURN_URL }), 200);
    expect(portal).toEqual({ object: 'billing_portal', url: expect.stringMatching(PORTAL_URL) });
    expect(PORTAL_URL.exec(portal.url)![1]).toBe(team.teamId);

    const page = await fetch(onGateway(portal.url));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('content-security-policy')).toContain("form-action 'self' https://app.example.com;");
    const html = await page.text();
    expect(html).toContain('Plan <strong>free</strong>, status <strong>active</strong>');
    expect(html).toContain('name="plan" value="team"');
    expect(html).toContain('name="plan" value="business"');
    expect(html).toContain(`href="${RETURN_URL.replace('&', '&amp;')}"`);

    const before = Date.now();
    // A returnUrl sent with the form is ignored: the page only ever goes back to the session's (no open redirect).
    const chosen = await submit(onGateway(portal.url), { action: 'choose_plan', plan: 'team', returnUrl: 'https://evil.example.net/' });
    expect(chosen.status).toBe(303);
    expect(chosen.headers.get('location')).toBe(RETURN_URL);

    const sub = expectOk(await getSubscription(), 200);
    expect(sub).toEqual({ object: 'subscription', status: 'active', plan: 'team', memberCount: 2, currentPeriodEnd: expect.stringMatching(ISO), cancelAtPeriodEnd: false });
    const periodDays = (Date.parse(sub.currentPeriodEnd) - before) / 86_400_000;
    expect(periodDays).toBeGreaterThan(29.9);
    expect(periodDays).toBeLessThan(30.1);
    await eventually('billing.subscription_updated', async () => billingEvents.length >= 1, 15_000);
    expect(billingEvents[0]).toMatchObject({
      type: 'billing.subscription_updated',
      teamId: team.teamId,
      data: { subscription: sub, changes: ['plan', 'currentPeriodEnd'], previous: { plan: 'free', currentPeriodEnd: null } },
    });

    // Choosing the plan it has changes nothing and emits nothing; the page shows it as current.
    const again = await submit(onGateway(portal.url), { action: 'choose_plan', plan: 'team' });
    expect(again.status).toBe(303);
    expect(expectOk(await getSubscription(), 200)).toEqual(sub);
    const shown = await (await fetch(onGateway(portal.url))).text();
    expect(shown).toContain('<strong>Team</strong> <span class="muted">15.00 USD per member and month</span></span><em>Current plan</em>');
    // a styled, responsive page (the stylesheet shared with the help center: gateway/src/page-style.ts)
    expect(shown).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(shown).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(shown).toContain('<style>');
  });

  it('cancels: status canceled reaches whoami; reads and writes keep working (docs/adr/0024); a new plan reactivates', async () => {
    const pageUrl = await newPortalPage('http://127.0.0.1:3000/back');
    const cancelled = await submit(pageUrl, { action: 'cancel' });
    expect(cancelled.status).toBe(303);
    expect(cancelled.headers.get('location')).toBe('http://127.0.0.1:3000/back');
    expect(expectOk(await getSubscription(), 200)).toMatchObject({ status: 'canceled', plan: 'team', currentPeriodEnd: null, cancelAtPeriodEnd: false });
    await eventually('billing.subscription_updated (canceled)', async () => billingEvents.some((e) => e.data.subscription.status === 'canceled'), 15_000);
    // whoami's status is cached with the key for up to 5 s.
    await eventually('whoami shows canceled', async () => expectOk(await tp.api.get('/auth/whoami', { key: team.sk_live }), 200).subscriptionStatus === 'canceled', 15_000);

    expectOk(await tp.api.post(path('/tickets'), { title: 'Still working after cancelling' }, { key: team.sk_test }), 201);
    expectOk(await tp.api.get(path('/tickets'), { key: team.sk_test }), 200);

    const html = await (await fetch(pageUrl)).text();
    expect(html).toContain('status <strong>canceled</strong>');
    expect(html).not.toContain('value="cancel"');
    expect((await submit(pageUrl, { action: 'choose_plan', plan: 'business' })).status).toBe(303);
    expect(expectOk(await getSubscription(), 200)).toMatchObject({ status: 'active', plan: 'business', currentPeriodEnd: expect.stringMatching(ISO) });
    await eventually('whoami shows active', async () => expectOk(await tp.api.get('/auth/whoami', { key: team.sk_test }), 200).subscriptionStatus === 'active', 15_000);
  });

  it('refuses a bad returnUrl: missing, wrong type, unknown field, not https, credentials, too long', async () => {
    expectError(await openPortal({}), 400, 'invalid_request_error', 'parameter_missing', 'returnUrl');
    expectError(await openPortal({ returnUrl: 42 }), 400, 'invalid_request_error', 'parameter_invalid', 'returnUrl');
    expectError(await openPortal({ returnUrl: RETURN_URL, plan: 'team' }), 400, 'invalid_request_error', 'parameter_invalid', 'plan');
    for (const bad of ['http://app.example.com/back', 'javascript:alert(1)', 'ftp://127.0.0.1/x', '//evil.example.net/', 'not a url',
      'https://user:secret@app.example.com/', `https://app.example.com/${'a'.repeat(2_000)}`]) {
      expectError(await openPortal({ returnUrl: bad }), 400, 'invalid_request_error', 'parameter_invalid', 'returnUrl');
    }
    for (const ok of ['http://localhost:5173/billing', 'http://[::1]:8080/', 'https://app.example.com/']) {
      expectOk(await openPortal({ returnUrl: ok }), 200);
    }
  });

  it('needs manage_billing, a secret key and the own team, for both operations', async () => {
    for (const call of [() => getSubscription(admin.key), () => openPortal({ returnUrl: RETURN_URL }, admin.key)]) {
      expectError(await call(), 403, 'authorization_error', 'insufficient_permissions');
    }
    expectError(await getSubscription(team.pk_test), 403, 'authorization_error', 'publishable_key_forbidden');
    expectError(await openPortal({ returnUrl: RETURN_URL }, team.pk_live), 403, 'authorization_error', 'publishable_key_write');
    expectError(await getSubscription(tp.otherTeam.sk_test), 403, 'authorization_error', 'team_access_denied');
    expectError(await openPortal({ returnUrl: RETURN_URL }, tp.otherTeam.sk_live), 403, 'authorization_error', 'team_access_denied');
    // The other team's subscription is untouched by all of the above.
    expect(expectOk(await tp.api.get(`/teams/${tp.otherTeam.teamId}/billing/subscription`, { key: tp.otherTeam.sk_test }), 200)).toMatchObject({ plan: 'free', status: 'active' });
  });

  it('the portal page: unknown session, another team, a bad form and other methods change nothing', async () => {
    const pageUrl = await newPortalPage();
    const before = expectOk(await getSubscription(), 200);
    const events = billingEvents.length;
    const [, teamId, session] = new URL(pageUrl).pathname.match(/^\/billing\/portal\/([^/]+)\/([^/]+)$/)!;
    const origin = new URL(pageUrl).origin;
    const unknown = `${origin}/billing/portal/${teamId}/bps_${'A'.repeat(43)}`;
    const otherTeam = `${origin}/billing/portal/${tp.otherTeam.teamId}/${session}`;
    for (const url of [unknown, otherTeam, `${origin}/billing/portal/${teamId}/not-a-session`, `${origin}/billing/portal/${teamId}`, `${pageUrl}/extra`]) {
      expect((await fetch(url)).status).toBe(404);
      expect((await submit(url, { action: 'cancel' })).status).toBe(404);
    }
    for (const form of <Record<string, string>[]>[{ action: 'choose_plan' }, { action: 'choose_plan', plan: 'gold' }, { action: 'delete' }, {}]) {
      const res = await submit(pageUrl, form);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    }
    expect((await submit(pageUrl, { action: 'cancel', pad: 'x'.repeat(2_000) })).status).toBe(413);
    const put = await fetch(pageUrl, { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
    // Without STRIPE_SECRET_KEY there is no Stripe webhook.
    const webhook = await fetch(`${origin}/billing/stripe/webhook`, { method: 'POST', body: '{}', headers: { 'stripe-signature': 't=1,v1=00' } });
    expect(webhook.status).toBe(404);
    expect(expectOk(await getSubscription(), 200)).toEqual(before);
    await settle();
    expect(billingEvents.length).toBe(events);
  });
});
