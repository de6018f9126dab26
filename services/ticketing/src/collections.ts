import { customFieldDefModel, platformWide, teamAndPartition, teamWide } from '@helpdesk/kit';
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

/**
 * Every collection of the service, declared once with its kind (kit's data layer, docs/adr/0065);
 * kit builds their indexes at start-up. Reached only through `scoped(models, scope)` (and the named
 * cross-team and platform ways in).
 */
export const ticketingModels = (conn: mongoose.Connection) => {
  const inbound = inboundEmailModels(conn);
  return {
    tickets: teamAndPartition(ticketModel(conn)),
    messages: teamAndPartition(messageModel(conn)),
    customerRefs: teamAndPartition(customerRefModel(conn)),
    customFieldDefs: teamWide(customFieldDefModel(conn)),
    memberRefs: teamWide(memberRefModel(conn), { key: 'teamId' }),
    businessHours: teamWide(businessHoursModel(conn), { key: '_id' }),
    slaRules: teamAndPartition(slaRuleModel(conn)),
    schedulerLeases: platformWide(schedulerLeaseModel(conn)),
    automations: teamAndPartition(automationModel(conn)),
    executions: teamAndPartition(executionModel(conn)),
    automationCauses: teamAndPartition(automationCauseModel(conn)),
    aiSettings: teamAndPartition(aiSettingsModel(conn)),
    articleRefs: teamAndPartition(articleRefModel(conn)),
    ticketFacts: teamAndPartition(ticketFactModel(conn)),
    emailMails: teamAndPartition(inbound.emailMails),
    inboundSecrets: teamAndPartition(inbound.inboundSecrets),
    teamMailIdentities: teamWide(inbound.teamMailIdentities, { key: '_id' }),
    inboundMailCounters: teamAndPartition(inbound.inboundMailCounters),
    widgetConversations: teamAndPartition(widgetConversationModel(conn)),
  };
};
export type TicketingModels = ReturnType<typeof ticketingModels>;
