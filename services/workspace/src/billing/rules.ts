import type mongoose from 'mongoose';
import type { BillingPlan, BillingPortalAction, SubscriptionSnapshot, SubscriptionStatus } from '@helpdesk/contracts';
import { changeSet, duplicateKeyOf, eventScopeOf, foundOr404, notFound, parameterInvalid, parameterMissing, retrying, scoped, withOutbox, type EventScope, type RequestContext } from '@helpdesk/kit';
import type Stripe from 'stripe';
import type { WorkspaceModels } from '../collections';
import { hashPortalSession } from './local-provider';
import type { SubscriptionDoc } from './model';
import type { BillingProvider } from './provider';
import { SUBSCRIPTION_EVENTS, subscriptionChange, teamOfSubscription } from './stripe-provider';
import { FREE_SUBSCRIPTION, PLAN_CATALOG, subscriptionView, type SubscriptionState } from './view';

export interface BillingRulesDeps {
  conn: mongoose.Connection;
  models: WorkspaceModels;
  provider: BillingProvider;
  /** With the Stripe provider: its client and the webhook signing secret. */
  stripe?: { client: Stripe; webhookSecret: string };
}

/** A change the provider reports: the new state, and its ids when it has some (Stripe's customer and subscription). */
export interface SubscriptionChange extends Partial<SubscriptionState> {
  customerId?: string | null;
  subscriptionId?: string | null;
  /** When the provider made the change; a change older than the last one applied is skipped (webhooks come in any order). */
  changedAt?: Date;
}

/** How long a local plan runs before it renews (there is no payment: the period only shows the cycle). */
const LOCAL_PERIOD_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * The team's subscription (docs/adr/0024): read by the API, changed only by its provider (the local
 * portal page or Stripe's webhook) through `applyChange`, which emits `billing.subscription_updated`.
 */
export function billingRules({ conn, models, provider, stripe }: BillingRulesDeps) {
  const db = (teamId: string) => scoped(models, { teamId });
  const find = (teamId: string, session?: mongoose.ClientSession) =>
    db(teamId).subscriptions.findOne({}).session(session ?? null).lean<SubscriptionDoc>();
  const memberCount = (teamId: string, session?: mongoose.ClientSession) => db(teamId).members.countDocuments({}).session(session ?? null);

  async function view(teamId: string, session?: mongoose.ClientSession): Promise<SubscriptionSnapshot> {
    const [sub, count] = await Promise.all([find(teamId, session), memberCount(teamId, session)]);
    return subscriptionView(sub ?? FREE_SUBSCRIPTION, count);
  }

  async function applyChange(scope: EventScope, change: SubscriptionChange): Promise<SubscriptionSnapshot> {
    // Two first changes at once: the loser's insert hits the unique scope and re-runs over the winner's document.
    return retrying(() =>
      withOutbox(conn, scope, async (session, emit) => {
        const cur = await find(scope.teamId, session);
        if (change.changedAt && cur?.providerChangedAt && cur.providerChangedAt > change.changedAt) return view(scope.teamId, session);
        const base = { ...FREE_SUBSCRIPTION, customerId: null, subscriptionId: null, providerChangedAt: null, ...(cur ?? {}) } as SubscriptionDoc;
        const c = changeSet<SubscriptionDoc>(base);
        for (const field of ['status', 'plan', 'currentPeriodEnd', 'cancelAtPeriodEnd'] as const) {
          if (change[field] !== undefined) c.change(field, change[field] as never);
        }
        const changes = c.changes();
        // Provider ids are no public change: stored, never an event of their own.
        const ids = {
          ...(change.customerId !== undefined && change.customerId !== base.customerId ? { customerId: change.customerId } : {}),
          ...(change.subscriptionId !== undefined && change.subscriptionId !== base.subscriptionId ? { subscriptionId: change.subscriptionId } : {}),
          ...(change.changedAt ? { providerChangedAt: change.changedAt } : {}),
        };
        if (!changes.length && !Object.keys(ids).length) return view(scope.teamId, session);
        const now = new Date();
        if (cur) {
          await db(scope.teamId).subscriptions.updateOne({ _id: cur._id }, { $set: { ...c.set, ...ids, provider: provider.name, updatedAt: now } }, { session });
        } else {
          const { _id: _ignored, teamId: _t, mode: _m, ...fields } = { ...base, ...c.set, ...ids } as SubscriptionDoc;
          await db(scope.teamId).subscriptions.create([{ ...fields, provider: provider.name, createdAt: now, updatedAt: now }], { session });
        }
        const next = await view(scope.teamId, session);
        if (changes.length) emit({ type: 'billing.subscription_updated', data: { subscription: next, changes, previous: c.previous } });
        return next;
      }),
      (err) => duplicateKeyOf(err) !== null,
      3,
    );
  }

  /** A local portal session that has not expired, or 404 (unknown, expired and never-made look the same). */
  async function openSession(teamId: string, session: string) {
    const doc = await db(teamId).portalSessions.findOne({ _id: hashPortalSession(session), expiresAt: { $gt: new Date() } }).lean();
    return foundOr404(Promise.resolve(doc), 'billing portal session');
  }

  async function page(teamId: string, session: string) {
    const s = await openSession(teamId, session);
    return { subscription: await view(teamId), plans: PLAN_CATALOG, returnUrl: s.returnUrl };
  }

  return {
    applyChange,

    get: (ctx: RequestContext) => view(ctx.teamId),

    /** The status the gateway shows in whoami (cached with the key). */
    async statusOf(teamId: string): Promise<SubscriptionStatus> {
      const sub = await db(teamId).subscriptions.findOne({}, { status: 1 }).lean<SubscriptionDoc>();
      return sub?.status ?? FREE_SUBSCRIPTION.status;
    },

    async openPortal(ctx: RequestContext, returnUrl: string): Promise<{ object: 'billing_portal'; url: string }> {
      const current = await find(ctx.teamId);
      const { url, customerId } = await provider.openPortal({ teamId: ctx.teamId, current, returnUrl });
      if (customerId && customerId !== current?.customerId) await applyChange(eventScopeOf(ctx), { customerId });
      return { object: 'billing_portal', url };
    },

    page: (ctx: RequestContext, session: string) => page(ctx.teamId, session),

    /**
     * Stripe's webhook, as the gateway received it: verified with the SDK's signature check, then a
     * `customer.subscription.*` event updates the subscription of its customer's team. Other events
     * and customers that are not ours are acknowledged and ignored (Stripe stops retrying on 2xx).
     */
    async stripeWebhook(payload: string, signature: string): Promise<{ received: true; applied: boolean }> {
      if (!stripe) throw notFound('Stripe webhook (this deployment uses the local billing provider)');
      let event: Stripe.Event;
      try {
        event = stripe.client.webhooks.constructEvent(payload, signature, stripe.webhookSecret);
      } catch {
        throw parameterInvalid('signature', 'The Stripe-Signature header does not match the payload (or is too old).');
      }
      if (!SUBSCRIPTION_EVENTS.has(event.type)) return { received: true, applied: false };
      const sub = event.data.object as Stripe.Subscription;
      const teamId = await teamOfSubscription(stripe.client, sub);
      if (!teamId) return { received: true, applied: false };
      const scope: EventScope = { teamId, mode: event.livemode ? 'live' : 'test', requestId: null, actor: { type: 'system', id: null } };
      await applyChange(scope, { ...subscriptionChange(sub), changedAt: new Date(event.created * 1000) });
      return { received: true, applied: true };
    },

    /**
     * The local portal page's form: a plan chosen (active for a 30-day period; `free` has none) or the
     * subscription cancelled (at once: `canceled`; choosing a plan again starts a new one).
     */
    async act(ctx: RequestContext, input: BillingPortalAction) {
      await openSession(ctx.teamId, input.session);
      if (input.action === 'choose_plan') {
        if (!input.plan) throw parameterMissing('plan');
        const plan: BillingPlan = input.plan;
        const cur = await find(ctx.teamId);
        const samePaidPlan = cur && cur.status === 'active' && cur.plan === plan && plan !== 'free';
        if (!samePaidPlan) {
          await applyChange(eventScopeOf(ctx), {
            status: 'active',
            plan,
            currentPeriodEnd: plan === 'free' ? null : new Date(Date.now() + LOCAL_PERIOD_MS),
            cancelAtPeriodEnd: false,
          });
        }
      } else {
        await applyChange(eventScopeOf(ctx), { status: 'canceled', currentPeriodEnd: null, cancelAtPeriodEnd: false });
      }
      return page(ctx.teamId, input.session);
    },
  };
}
export type BillingRules = ReturnType<typeof billingRules>;
