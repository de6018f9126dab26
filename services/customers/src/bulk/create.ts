import type { CreateCustomerInput } from '@helpdesk/contracts';
import { ApiError, conflict, duplicateKeyOf, type RequestContext } from '@helpdesk/kit';
import type { CustomerRules } from '../customers/rules';
import type { CustomerView } from '../customers/view';

/** How many requesters or rows are written at once (each one its own transaction, as one request). */
export const CONCURRENCY = 4;

/** A refusal (4xx) as a value, so it fails one row; a fault (5xx, a bug) is thrown. */
export function refusal(err: unknown): ApiError {
  if (err instanceof ApiError && err.status < 500) return err;
  throw err;
}

export function refusalOr<T>(fn: () => T): T | ApiError {
  try {
    return fn();
  } catch (err) {
    return refusal(err);
  }
}

/** New customers in one transaction; a duplicate email (two rows, or one taken meanwhile) refuses them all as a 409. */
export async function createAll(customers: Pick<CustomerRules, 'createMany'>, ctx: RequestContext, inputs: CreateCustomerInput[]): Promise<CustomerView[]> {
  if (!inputs.length) return [];
  try {
    return await customers.createMany(ctx, inputs);
  } catch (err) {
    if (duplicateKeyOf(err)) throw conflict('A customer with this email already exists.', 'email');
    throw err;
  }
}
