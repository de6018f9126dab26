import type mongoose from 'mongoose';
import { customerModel } from './customers/model';
import { groupModel } from './groups/model';
import { membershipModel } from './members/model';
import { statusModel } from './statuses/model';

/** Every model of the service on one connection. */
export function modelsOf(conn: mongoose.Connection) {
  return {
    customers: customerModel(conn),
    groups: groupModel(conn),
    memberships: membershipModel(conn),
    statuses: statusModel(conn),
  };
}

/** Builds every model's indexes (called once at start-up, before requests and events). */
export async function initModels(conn: mongoose.Connection): Promise<void> {
  await Promise.all(Object.values(modelsOf(conn)).map((m) => (m as mongoose.Model<any>).init()));
}
