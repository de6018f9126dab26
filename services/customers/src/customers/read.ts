import type mongoose from 'mongoose';
import type { CustomerSnapshot } from '@helpdesk/contracts';
import { foundOr404, scoped, type RequestContext, type Scope } from '@helpdesk/kit';
import type { CustomerDoc } from './model';
import type { CustomerStore } from './port';
import { customerSnapshot, customerView, type CustomerView } from './view';

export async function findCustomerOr404({ models }: Pick<CustomerStore, 'models'>, scope: Scope, id: string, session?: mongoose.ClientSession): Promise<CustomerDoc> {
  return foundOr404(scoped(models, scope).customers.findOne({ _id: id }).session(session ?? null).lean<CustomerDoc>(), 'customer', id);
}

export async function getCustomer(deps: Pick<CustomerStore, 'models'>, ctx: RequestContext, id: string): Promise<CustomerView> {
  return customerView(await findCustomerOr404(deps, ctx, id));
}

export async function customerSnapshotOf(deps: Pick<CustomerStore, 'models'>, ctx: RequestContext, id: string): Promise<CustomerSnapshot> {
  return customerSnapshot(await findCustomerOr404(deps, ctx, id));
}

/** Internal operation: the customer with this email (case-insensitive), or null. */
export async function findCustomerByEmail({ models }: Pick<CustomerStore, 'models'>, ctx: RequestContext, email: string): Promise<CustomerSnapshot | null> {
  const c = await scoped(models, ctx).customers.findOne({ emailLower: email.trim().toLowerCase() }).lean<CustomerDoc>();
  return c ? customerSnapshot(c) : null;
}
