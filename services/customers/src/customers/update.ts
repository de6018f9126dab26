import type { UpdateCustomerInput } from '@helpdesk/contracts';
import { changeSet, conflictOnDuplicate, eventScopeOf, mergeFreeForm, scoped, withOutbox, type RequestContext } from '@helpdesk/kit';
import { EMAIL_TAKEN } from './create';
import { customerSearchTokens, type CustomerDoc } from './model';
import type { CustomerFields, CustomerStore, KnownStatuses } from './port';
import { findCustomerOr404 } from './read';
import { customerSnapshot, customerView, type CustomerView } from './view';

export async function updateCustomer(
  deps: CustomerStore & { statuses: KnownStatuses; customFields: Pick<CustomerFields, 'resolve'> },
  ctx: RequestContext,
  id: string,
  input: UpdateCustomerInput,
): Promise<CustomerView> {
  const { conn, models, statuses, customFields } = deps;
  const db = scoped(models, ctx);
  const next = await conflictOnDuplicate(
    () =>
      withOutbox(conn, eventScopeOf(ctx), async (session, emit) => {
        const cur = await findCustomerOr404(deps, ctx, id, session);
        const { set, previous, change, changes: changedFields, applyDefined } = changeSet<CustomerDoc>(cur);

        if (input.name !== undefined) change('name', input.name);
        if (input.email !== undefined && input.email !== cur.email) {
          change('email', input.email);
          set.emailLower = input.email.toLowerCase();
        }
        if (input.status !== undefined && input.status !== cur.status) {
          await statuses.assertKnown(ctx, input.status, 'status', session);
          change('status', input.status);
        }
        if (input.sentiment !== undefined && input.sentiment !== cur.sentimentOverride) {
          // The override is stored even when it equals the shown value: it pins it against later calculations.
          set.sentimentOverride = input.sentiment;
          change('sentiment', input.sentiment ?? cur.sentimentCalculated);
        }
        applyDefined(input, ['tags', 'notes']);
        if (input.metadata !== undefined) change('metadata', mergeFreeForm(cur.metadata ?? {}, input.metadata, 'metadata'));
        if (input.customFields !== undefined) change('customFields', await customFields.resolve(ctx, input.customFields, cur.customFields ?? {}));

        const changes = changedFields();
        if (changes.includes('name') || changes.includes('email')) Object.assign(set, customerSearchTokens({ name: set.name ?? cur.name, email: set.email !== undefined ? set.email : cur.email }));
        if (!changes.length) {
          if (set.sentimentOverride === undefined) return cur;
          return (await db.customers.findOneAndUpdate({ _id: id }, { $set: set }, { session, returnDocument: 'after' }).lean<CustomerDoc>())!;
        }
        set.updatedAt = new Date();
        const written = await db.customers
          .findOneAndUpdate({ _id: id }, { $set: set, $inc: { rev: 1 } }, { session, returnDocument: 'after' })
          .lean<CustomerDoc>();
        emit({ type: 'customer.updated', data: { customer: customerSnapshot(written!), changes, previous } });
        return written!;
      }),
    EMAIL_TAKEN,
  );
  return customerView(next);
}
