import { createCustomerBody, type CreateCustomerInput, type CustomerSnapshot } from '@helpdesk/contracts';
import { ApiError, IMPORT_CHUNK, mapConcurrently, parseInput, scoped, type RequestContext } from '@helpdesk/kit';
import type { CustomerDoc } from '../customers/model';
import type { CustomerRules } from '../customers/rules';
import { customerSnapshot, type CustomerView } from '../customers/view';
import type { CustomersModels } from '../collections';
import { CONCURRENCY, createAll, refusal, refusalOr } from './create';

type Requester = { email: string; name: string | null };

/**
 * Ticket import's requesters (docs/adr/0037): each email's customer, found or created through the
 * customer rules; a refused requester (an invalid email) is answered with its error.
 */
export async function ensureRequesters(
  deps: { models: CustomersModels; customers: Pick<CustomerRules, 'create' | 'createMany'> },
  ctx: RequestContext,
  requesters: readonly Requester[],
): Promise<{ customers: { email: string; customer: CustomerSnapshot | null; error?: string }[] }> {
  const byEmail = new Map<string, Requester>();
  for (const r of requesters) if (!byEmail.has(r.email.toLowerCase())) byEmail.set(r.email.toLowerCase(), r);
  // The existing ones in one query; each missing one created through the customer rules.
  const existing = await scoped(deps.models, ctx).customers.find({ emailLower: { $in: [...byEmail.keys()] } }).lean<CustomerDoc[]>();
  const known = new Map(existing.map((c) => [c.emailLower, customerSnapshot(c)]));
  const inputOf = ({ email, name }: { email: string; name: string | null }) => parseInput(createCustomerBody, { email, name: name?.trim() || email.split('@')[0] });
  // A new customer's snapshot is its view at revision 0.
  const answerOf = (email: string, created: CustomerView) => ({ email, customer: { ...created, rev: 0 } });
  // A refused requester (an invalid email) fails its tickets' rows, not the import.
  const refusedOf = (email: string, err: ApiError) => ({ email, customer: null, error: err.message });
  const answers: { email: string; customer: CustomerSnapshot | null; error?: string }[] = [];
  const missing: { email: string; name: string | null }[] = [];
  for (const r of byEmail.values()) {
    const found = known.get(r.email.toLowerCase());
    if (found) answers.push({ email: r.email, customer: found });
    else missing.push(r);
  }
  const chunks = Array.from({ length: Math.ceil(missing.length / IMPORT_CHUNK) }, (_, i) => missing.slice(i * IMPORT_CHUNK, (i + 1) * IMPORT_CHUNK));
  // Chunks CONCURRENCY at a time (one transaction each; the emails are distinct).
  await mapConcurrently(chunks, CONCURRENCY, async (rows) => {
    const chunk = rows.map((r) => ({ email: r.email, input: refusalOr(() => inputOf(r)) }));
    const valid = chunk.filter((c): c is { email: string; input: CreateCustomerInput } => !(c.input instanceof ApiError));
    try {
      // The new ones in one transaction (one customer.created each).
      const created = await createAll(deps.customers, ctx, valid.map((c) => c.input));
      valid.forEach((c, k) => answers.push(answerOf(c.email, created[k])));
    } catch (err) {
      refusal(err);
      // Refused as a whole (an email taken meanwhile): nothing written; one by one, each failing alone.
      answers.push(
        ...(await mapConcurrently(valid, CONCURRENCY, async (c) => {
          const one = await deps.customers.create(ctx, c.input).catch(refusal);
          return one instanceof ApiError ? refusedOf(c.email, one) : answerOf(c.email, one);
        })),
      );
    }
    for (const c of chunk) if (c.input instanceof ApiError) answers.push(refusedOf(c.email, c.input));
  });
  return { customers: answers };
}
