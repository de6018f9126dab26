import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import type { EventEnvelope } from '@helpdesk/contracts';
import { eventually } from '@helpdesk/testing';
import { startTestPlatform, type TeamKeys, type TestPlatform } from '../support/platform';
import { expectOk } from './helpdesk-helpers';
import { billingEventLog } from './workspace-billing-helpers';

/**
 * The Stripe provider (docs/adr/0024) with the real SDK pointed at a local fake of the few Stripe
 * endpoints it uses: create and retrieve a customer, create a Billing Portal session. Webhooks are
 * signed with the SDK's own test helper.
 */
const SECRET_KEY = 'sk_test_fake_billing';
const WEBHOOK_SECRET = 'whsec_test_billing';

interface FakeRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  form: URLSearchParams;
}

/** The fake Stripe API: answers like Stripe for the four calls we make, records every request. */
async function startFakeStripe() {
  const requests: FakeRequest[] = [];
  const customers = new Map<string, { id: string; object: 'customer'; metadata: Record<string, string> }>();
  let n = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stripe.invalid');
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      requests.push({ method: req.method ?? '', path: url.pathname, authorization: req.headers.authorization, form });
      const json = (status: number, body: object) => {
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${++n}` });
        res.end(JSON.stringify(body));
      };
      const customerMatch = /^\/v1\/customers\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'POST' && url.pathname === '/v1/customers') {
        const metadata: Record<string, string> = {};
        for (const [k, v] of form) if (k.startsWith('metadata[')) metadata[k.slice(9, -1)] = v;
        const customer = { id: `cus_fake${++n}`, object: 'customer' as const, metadata };
        customers.set(customer.id, customer);
        return json(200, customer);
      }
      if (req.method === 'GET' && customerMatch) {
        const customer = customers.get(customerMatch[1]);
        return customer ? json(200, customer) : json(404, { error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such customer' } });
      }
      if (req.method === 'POST' && url.pathname === '/v1/billing_portal/sessions') {
        const id = `bps_fake${++n}`;
        return json(200, { id, object: 'billing_portal.session', customer: form.get('customer'), return_url: form.get('return_url'), url: `https://billing.stripe.test/p/session/${id}` });
      }
      json(404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${url.pathname})` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    customers,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let fake: Awaited<ReturnType<typeof startFakeStripe>>;
let tp: TestPlatform;
let team: TeamKeys;
let billingEvents: EventEnvelope<any>[] = [];
let settle: () => Promise<void>;
const stripe = new Stripe('sk_test_only_for_signing');
const path = (p: string) => `/teams/${team.teamId}${p}`;
const getSubscription = () => tp.api.get(path('/billing/subscription'), { key: team.sk_test });
const webhookUrl = () => `${new URL(tp.baseUrl).origin}/billing/stripe/webhook`;

function subscriptionEvent(type: string, customer: string, sub: Partial<Record<string, unknown>>, livemode = false, created = Math.floor(Date.now() / 1000)) {
  return JSON.stringify({
    id: `evt_${Math.random().toString(36).slice(2)}`,
    object: 'event',
    type,
    livemode,
    created,
    api_version: '2025-01-01',
    data: {
      object: {
        id: 'sub_fake1',
        object: 'subscription',
        customer,
        status: 'active',
        cancel_at_period_end: false,
        metadata: {},
        items: { object: 'list', data: [{ id: 'si_fake1', object: 'subscription_item', current_period_end: 1_900_000_000, price: { id: 'price_team', lookup_key: 'team' } }] },
        ...sub,
      },
    },
  });
}

const deliver = (payload: string, signature: string | null = stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET })) =>
  fetch(webhookUrl(), { method: 'POST', body: payload, headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'stripe-signature': signature }) } });


beforeAll(async () => {
  fake = await startFakeStripe();
  tp = await startTestPlatform({ billing: { stripe: { secretKey: SECRET_KEY, webhookSecret: WEBHOOK_SECRET, apiBase: fake.url } } });
  team = await tp.createTeam('Stripe Corp');
  ({ events: billingEvents, settle } = await billingEventLog(tp));
}, 60_000);
afterAll(async () => {
  await tp?.stop();
  await fake?.stop();
}, 60_000);

describe('billing with Stripe', () => {
  let customerId: string;

  it('makes one Stripe customer per team and answers a Stripe Billing Portal session', async () => {
    const portal = expectOk(await tp.api.post(path('/billing/portal'), { returnUrl: 'https://app.example.com/billing' }, { key: team.sk_test }), 200);
    expect(portal).toEqual({ object: 'billing_portal', url: expect.stringMatching(/^https:\/\/billing\.stripe\.test\/p\/session\/bps_fake\d+$/) });
    const created = fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/customers');
    expect(created).toHaveLength(1);
    expect(created[0].authorization).toBe(`Bearer ${SECRET_KEY}`);
    expect(created[0].form.get('metadata[teamId]')).toBe(team.teamId);
    customerId = [...fake.customers.values()].find((c) => c.metadata.teamId === team.teamId)!.id;
    const session = fake.requests.filter((r) => r.path === '/v1/billing_portal/sessions');
    expect(session.map((r) => [r.form.get('customer'), r.form.get('return_url')])).toEqual([[customerId, 'https://app.example.com/billing']]);

    // The second session reuses the team's customer.
    expectOk(await tp.api.post(path('/billing/portal'), { returnUrl: 'https://app.example.com/again' }, { key: team.sk_live }), 200);
    expect(fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/customers')).toHaveLength(1);
    expect(fake.requests.filter((r) => r.path === '/v1/billing_portal/sessions').map((r) => r.form.get('customer'))).toEqual([customerId, customerId]);
    // Storing the customer id is no change of the subscription anyone sees.
    expect(expectOk(await getSubscription(), 200)).toMatchObject({ plan: 'free', status: 'active' });
  });

  it('a signed customer.subscription.updated changes the subscription, emits billing.subscription_updated and reaches whoami', async () => {
    const res = await deliver(subscriptionEvent('customer.subscription.updated', customerId, {
      status: 'past_due',
      cancel_at_period_end: true,
      items: { object: 'list', data: [{ id: 'si_fake1', object: 'subscription_item', current_period_end: 1_900_000_000, price: { id: 'price_business', lookup_key: 'business' } }] },
    }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: true });
    const sub = expectOk(await getSubscription(), 200);
    expect(sub).toEqual({ object: 'subscription', status: 'past_due', plan: 'business', memberCount: 1, currentPeriodEnd: new Date(1_900_000_000_000).toISOString(), cancelAtPeriodEnd: true });
    // The team was found from the customer Stripe names.
    expect(fake.requests.some((r) => r.method === 'GET' && r.path === `/v1/customers/${customerId}`)).toBe(true);
    await eventually('billing.subscription_updated', async () => billingEvents.length >= 1, 15_000);
    expect(billingEvents[0]).toMatchObject({
      type: 'billing.subscription_updated',
      teamId: team.teamId,
      mode: 'test',
      actor: { type: 'system', id: null },
      data: { subscription: sub, changes: ['status', 'plan', 'currentPeriodEnd', 'cancelAtPeriodEnd'] },
    });
    await eventually('whoami shows past_due', async () => expectOk(await tp.api.get('/auth/whoami', { key: team.sk_test }), 200).subscriptionStatus === 'past_due', 15_000);
    // Writes keep working while past due (docs/adr/0024).
    expectOk(await tp.api.post(path('/tickets'), { title: 'Past due but working' }, { key: team.sk_test }), 201);
  });

  it('customer.subscription.deleted cancels', async () => {
    const res = await deliver(subscriptionEvent('customer.subscription.deleted', customerId, { status: 'canceled' }, true));
    expect(res.status).toBe(200);
    expect(expectOk(await getSubscription(), 200)).toMatchObject({ status: 'canceled', plan: 'team', currentPeriodEnd: null, cancelAtPeriodEnd: false });
    await eventually('the canceled event', async () => billingEvents.some((e) => e.data.subscription.status === 'canceled' && e.mode === 'live'), 15_000);
  });

  it('refuses a missing, wrong or stale signature and changes nothing; ignores other events and customers that are not ours', async () => {
    const before = expectOk(await getSubscription(), 200);
    await settle();
    const events = billingEvents.length;
    const payload = subscriptionEvent('customer.subscription.updated', customerId, { status: 'active' });
    const stale = stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET, timestamp: Math.floor(Date.now() / 1000) - 3_600 });
    const wrongSecret = stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_someone_else' });
    const otherPayload = stripe.webhooks.generateTestHeaderString({ payload: payload.replace('"active"', '"trialing"'), secret: WEBHOOK_SECRET });
    for (const signature of [null, '', 'garbage', stale, wrongSecret, otherPayload]) {
      const res = await deliver(payload, signature);
      expect(res.status).toBe(400);
    }
    expect((await deliver('not json at all', null)).status).toBe(400);
    expect((await fetch(webhookUrl())).status).toBe(405);
    expect((await deliver('x'.repeat(300 * 1024))).status).toBe(413);

    // An older event arriving after a newer one (Stripe does not promise order) is acknowledged and skipped.
    expect((await deliver(subscriptionEvent('customer.subscription.updated', customerId, { status: 'active' }, false, Math.floor(Date.now() / 1000) - 600))).status).toBe(200);

    // Signed, but not a subscription event, or a customer of another platform: acknowledged, ignored.
    expect((await deliver(JSON.stringify({ id: 'evt_inv', object: 'event', type: 'invoice.paid', livemode: false, created: 1, data: { object: { id: 'in_1', object: 'invoice' } } }))).status).toBe(200);
    fake.customers.set('cus_stranger', { id: 'cus_stranger', object: 'customer', metadata: {} });
    expect((await deliver(subscriptionEvent('customer.subscription.updated', 'cus_stranger', { status: 'unpaid' }))).status).toBe(200);

    expect(expectOk(await getSubscription(), 200)).toEqual(before);
    await settle();
    expect(billingEvents.length).toBe(events);
  });
});
