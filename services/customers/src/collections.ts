import { customFieldDefModel, teamAndPartition, teamWide } from '@helpdesk/kit';
import type mongoose from 'mongoose';
import { membershipModel } from './customer-groups/members/model';
import { groupModel } from './customer-groups/model';
import { statusModel } from './customer-statuses/model';
import { customerModel } from './customers/model';
import { confirmationModel } from './widget-sign-ups/model';

/**
 * Every collection of the service, declared once with its kind (kit's data layer, docs/adr/0065);
 * kit builds their indexes at start-up. Reached only through `scoped(models, scope)`.
 */
export const customersModels = (conn: mongoose.Connection) => ({
  customers: teamAndPartition(customerModel(conn)),
  groups: teamAndPartition(groupModel(conn)),
  memberships: teamAndPartition(membershipModel(conn)),
  statuses: teamAndPartition(statusModel(conn)),
  customFieldDefs: teamWide(customFieldDefModel(conn)),
  confirmations: teamAndPartition(confirmationModel(conn)),
});
export type CustomersModels = ReturnType<typeof customersModels>;
