import { customFieldDefModel } from '@helpdesk/kit';
import type mongoose from 'mongoose';
import { businessHoursModel } from './business-hours/model';
import { customerRefModel } from './customer-refs/model';
import { memberRefModel } from './members/model';
import { schedulerLeaseModel, slaRuleModel } from './sla/model';
import { messageModel } from './tickets/messages/model';
import { ticketModel } from './tickets/model';
import { automationCauseModel, automationModel, executionModel } from './automations/model';
import { aiSettingsModel, articleRefModel } from './ai/model';
import { ticketFactModel } from './analytics/model';
import { inboundEmailModels } from './inbound-email/model';
import { widgetConversationModel } from './widget/model';

/** Every model of the service on its connection (kit builds their indexes at start-up). */
export const ticketingModels = (conn: mongoose.Connection) => ({
  tickets: ticketModel(conn),
  messages: messageModel(conn),
  customerRefs: customerRefModel(conn),
  customFieldDefs: customFieldDefModel(conn),
  memberRefs: memberRefModel(conn),
  businessHours: businessHoursModel(conn),
  slaRules: slaRuleModel(conn),
  schedulerLeases: schedulerLeaseModel(conn),
  automations: automationModel(conn),
  executions: executionModel(conn),
  automationCauses: automationCauseModel(conn),
  aiSettings: aiSettingsModel(conn),
  articleRefs: articleRefModel(conn),
  ticketFacts: ticketFactModel(conn),
  ...inboundEmailModels(conn),
  widgetConversations: widgetConversationModel(conn),
});
export type TicketingModels = ReturnType<typeof ticketingModels>;
