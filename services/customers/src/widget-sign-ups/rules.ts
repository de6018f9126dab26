import { createHash, randomInt } from 'node:crypto';
import type mongoose from 'mongoose';
import { CONFIRMATION_ATTEMPTS_MAX, CONFIRMATION_CODE_ALPHABET, CONFIRMATION_CODE_LENGTH, type CustomerSnapshot } from '@helpdesk/contracts';
import { ApiError, eventScopeOf, scoped, withOutbox, type Emit, type RequestContext } from '@helpdesk/kit';
import type { CustomerRules } from '../customers/rules';
import type { CustomersModels } from '../collections';

/** How long a mailed confirmation code works. */
export const CONFIRMATION_TTL_MS = 24 * 60 * 60 * 1000;

const newCode = () => Array.from({ length: CONFIRMATION_CODE_LENGTH }, () => CONFIRMATION_CODE_ALPHABET[randomInt(CONFIRMATION_CODE_ALPHABET.length)]).join('');
/** Bound to its customer: the same code of another customer is another hash. */
const hashOf = (customerId: string, code: string) => createHash('sha256').update(`${customerId}:${code}`).digest('hex');
/** What a visitor types: any case, spaces and dashes ignored. */
const normalised = (code: string) => code.toUpperCase().replace(/[\s-]/g, '');


/**
 * Widget sign-ups (docs/adr/0040): the customer with the visitor's email, or a new `pending` one; a
 * pending customer is mailed a confirmation code (the event `customer.confirmation_requested`, which
 * the notifications service mails), and the right code makes them `active`.
 */
export function widgetSignUpRules({ conn, models, customers }: { conn: mongoose.Connection; models: CustomersModels; customers: CustomerRules }) {
  /** A new code for `customer`, in the caller's transaction: stored hashed, sent by its event. */
  async function requestConfirmation(ctx: RequestContext, session: mongoose.ClientSession, emit: Emit, customer: CustomerSnapshot) {
    const code = newCode();
    const expiresAt = new Date(Date.now() + CONFIRMATION_TTL_MS);
    await scoped(models, ctx).confirmations.updateOne(
      { _id: customer.id },
      { $set: { codeHash: hashOf(customer.id, code), attempts: 0, expiresAt } },
      { upsert: true, session },
    );
    emit({
      type: 'customer.confirmation_requested',
      data: { customer: { id: customer.id, name: customer.name, email: customer.email ?? '' }, code, expiresAt: expiresAt.toISOString() },
    });
  }

  return {
    async signUp(ctx: RequestContext, name: string, email: string): Promise<{ customer: CustomerSnapshot; created: boolean; confirmationSent: boolean }> {
      const found = await customers.findByEmail(ctx, email);
      if (found) {
        if (found.status !== 'pending') return { customer: found, created: false, confirmationSent: false };
        // Still unconfirmed from an earlier sign-up: a fresh code (the old one may be lost or spent).
        await withOutbox(conn, eventScopeOf(ctx), (session, emit) => requestConfirmation(ctx, session, emit, found));
        return { customer: found, created: false, confirmationSent: true };
      }
      try {
        const customer = await customers.createPending(ctx, name, email, (session, emit, c) => requestConfirmation(ctx, session, emit, c));
        return { customer, created: true, confirmationSent: true };
      } catch (err) {
        // Two sign-ups with one new email at once: the loser finds the winner's customer (and its code).
        if (!(err instanceof ApiError) || err.code !== 'resource_conflict') throw err;
        const winner = await customers.findByEmail(ctx, email);
        if (!winner) throw err;
        return { customer: winner, created: false, confirmationSent: winner.status === 'pending' };
      }
    },

    /** The right code: the customer becomes `active` (if still `pending`) and the confirmation is spent. */
    async confirm(ctx: RequestContext, customerId: string, code: string): Promise<{ confirmed: boolean; customer: CustomerSnapshot | null }> {
      const wrong = { confirmed: false, customer: null };
      const db = scoped(models, ctx);
      const open = await db.confirmations.findOne({ _id: customerId }).lean();
      if (!open || open.expiresAt.getTime() <= Date.now() || open.attempts >= CONFIRMATION_ATTEMPTS_MAX) return wrong;
      if (open.codeHash !== hashOf(customerId, normalised(code))) {
        await db.confirmations.updateOne({ _id: customerId }, { $inc: { attempts: 1 } });
        return wrong;
      }
      // Activated, then spent: a failure between the two leaves a code that still works (once more, harmlessly).
      const current = await customers.snapshot(ctx, customerId);
      if (current.status === 'pending') await customers.update(ctx, customerId, { status: 'active' });
      await db.confirmations.deleteOne({ _id: customerId });
      return { confirmed: true, customer: await customers.snapshot(ctx, customerId) };
    },
  };
}
