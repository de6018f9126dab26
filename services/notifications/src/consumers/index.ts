import { on, type InternalTokens, type ServiceDeps, type Subscription } from '@helpdesk/kit';
import type { EventLog } from '../events/stream/log';
import type { NotificationsModels } from '../collections';
import type { NotificationsRules } from '../rules';
import { automationConsumers } from './automations';
import { emailReplyConsumers } from './email-replies';
import { gameConsumers } from './game';
import { slaConsumers } from './sla';
import { streamLogSubscription } from './stream';
import { ticketConsumers } from './tickets';
import { workspaceConsumers } from './workspace';
import { widgetConfirmationConsumers } from './widget-confirmations';

/**
 * Everything the notifications service reacts to, in one list (queue `helpdesk.notifications`); a
 * handler that throws is retried by the bus.
 */
export const consumers = ({ members, notifications, mail }: NotificationsRules, { conn }: ServiceDeps<NotificationsModels>): Subscription[] => {
  const workspace = workspaceConsumers(conn, members, notifications, mail);
  const tickets = ticketConsumers(conn, members, notifications);
  const game = gameConsumers(conn, members, notifications);
  return [
    on('member.joined', workspace.joined), // the member list: userId and @mentions
    on('member.role_changed', workspace.roleChanged),
    on('member.removed', workspace.removed),
    on('member.preferences_updated', workspace.preferencesUpdated),
    on('member.invited', workspace.invited), // the invitation mail
    on('sign_in_link.requested', workspace.signInLinkRequested), // the sign-in mail (docs/adr/0068)
    on('invite.accepted', workspace.inviteAccepted), // invite_accepted for the inviter
    on('ticket.updated', tickets.updated), // assigned
    on('ticket.message_added', tickets.messageAdded), // customer_replied, mentioned
    on('sla.breached', slaConsumers(conn, members, notifications).breached), // sla_breached for the assignee
    on('automation.member_notified', automationConsumers(conn, members, notifications).memberNotified), // automation, for the member a rule names
    on('game.boss.spawned', game.bossSpawned), // boss_spawned for every member not in boring mode
    on('game.boss.defeated', game.bossDefeated), // boss_defeated, with each member's share
    on('customer.confirmation_requested', widgetConfirmationConsumers(conn, mail).requested), // a widget sign-up's confirmation code (docs/adr/0040)
  ];
};

/** What the subscriptions that depend on the service's settings need. */
export interface ConsumerSettings {
  /** The ticketing service: agents' replies on email tickets are mailed only when it is known. */
  ticketingUrl?: string;
  tokens: InternalTokens;
  streamLog: Pick<EventLog, 'append'>;
}

/** The service's subscriptions: the events above, agents' replies on email tickets, and every event into the stream's log. */
export const allConsumers =
  (settings: ConsumerSettings) =>
  (rules: NotificationsRules, deps: ServiceDeps<NotificationsModels>): Subscription[] => [
    ...consumers(rules, deps),
    // Agents' replies on email tickets, mailed to the customer (docs/adr/0041).
    ...(settings.ticketingUrl ? emailReplyConsumers(deps.conn, rules.mail, settings.ticketingUrl, settings.tokens) : []),
    streamLogSubscription(settings.streamLog),
  ];
