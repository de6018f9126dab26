import type mongoose from 'mongoose';
import { createCustomerService } from './customers/service';
import { createGroupService } from './groups/service';
import { createMemberService } from './members/service';
import { modelsOf } from './models';
import { createStatusService } from './statuses/service';

/** The resources' rules, wired on one connection (the app and the consumers share them). */
export function servicesOf(conn: mongoose.Connection) {
  const m = modelsOf(conn);
  const statuses = createStatusService({ conn, statuses: m.statuses, customers: m.customers });
  const customers = createCustomerService({ conn, customers: m.customers, groups: m.groups, memberships: m.memberships, statuses });
  const groups = createGroupService({ conn, groups: m.groups, memberships: m.memberships, customers: m.customers });
  const members = createMemberService({ conn, memberships: m.memberships, groups: m.groups, customers: m.customers, groupService: groups });
  return { statuses, customers, groups, members };
}
export type Services = ReturnType<typeof servicesOf>;
