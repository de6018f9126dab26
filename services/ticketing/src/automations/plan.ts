import type { ActionInput } from '@helpdesk/contracts';
import { ApiError, type Scope } from '@helpdesk/kit';
import type { TicketChanges } from '../tickets/change';
import type { TicketDoc } from '../tickets/model';
import type { MemberCheck } from './stored';

/** What a rule's actions would do to a ticket: the field changes, the messages, the notifications, and each action's outcome. */
export interface Plan {
  changes: TicketChanges;
  messages: { content: string; isInternal: boolean }[];
  notifications: { memberId: string; message: string }[];
  outcomes: { action: string; success: boolean; error: string | null }[];
}

/** Why an action cannot run on the ticket (merged, or a member no longer in the team), or null. */
async function refusal(members: MemberCheck, scope: Scope, a: ActionInput, ticket: TicketDoc): Promise<string | null> {
  if (ticket.status === 'merged') return 'the ticket is merged and cannot change';
  if ((a.type === 'assign' || a.type === 'notify_member') && a.memberId) {
    try {
      await members.assertMember(scope, a.memberId, 'memberId');
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return `'${a.memberId}' is not a member of this team`;
    }
  }
  return null;
}

/** Plans the actions on the ticket as it is; a member no longer in the team fails that action only. */
export async function planActions(members: MemberCheck, scope: Scope, actions: ActionInput[], ticket: TicketDoc): Promise<Plan> {
  const p: Plan = { changes: {}, messages: [], notifications: [], outcomes: [] };
  let tags = [...(ticket.tags ?? [])];
  for (const a of actions) {
    const error = await refusal(members, scope, a, ticket);
    if (!error) {
      switch (a.type) {
        case 'assign':
          p.changes.assignedTo = a.memberId;
          break;
        case 'set_status':
          p.changes.status = a.status;
          break;
        case 'set_priority':
          p.changes.priority = a.priority;
          break;
        case 'add_tags':
          tags = [...new Set([...tags, ...a.tags])];
          p.changes.tags = tags;
          break;
        case 'remove_tags':
          tags = tags.filter((t) => !a.tags.includes(t));
          p.changes.tags = tags;
          break;
        case 'add_note':
          p.messages.push({ content: a.content, isInternal: true });
          break;
        case 'send_reply':
          p.messages.push({ content: a.content, isInternal: false });
          break;
        case 'notify_member':
          p.notifications.push({ memberId: a.memberId, message: a.message ?? `Automation: ticket ${ticket._id} needs your attention` });
          break;
      }
    }
    p.outcomes.push({ action: a.type, success: !error, error });
  }
  return p;
}
