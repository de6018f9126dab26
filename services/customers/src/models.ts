import { customFieldDefModel } from '@helpdesk/kit';
import type mongoose from 'mongoose';
import { membershipModel } from './customer-groups/members/model';
import { groupModel } from './customer-groups/model';
import { statusModel } from './customer-statuses/model';
import { customerModel } from './customers/model';
import { confirmationModel } from './widget-sign-ups/model';

/** Every model of the service on its connection (kit builds their indexes at start-up). */
export const customersModels = (conn: mongoose.Connection) => ({
  customers: customerModel(conn),
  groups: groupModel(conn),
  memberships: membershipModel(conn),
  statuses: statusModel(conn),
  customFieldDefs: customFieldDefModel(conn),
  confirmations: confirmationModel(conn),
});
export type CustomersModels = ReturnType<typeof customersModels>;
