import { consumeOnce, on, type ServiceDeps, type Subscription, type TypedEvent } from '@helpdesk/kit';
import type { GameModels } from '../models';
import type { GameRules } from '../rules';
import { CONSUMER } from '../tickets/batch';

/**
 * Everything the game service reacts to, in one list (queue `helpdesk.game`): the workspace's members
 * and switches, and the ticketing service's tickets (each partition feeds its own game world).
 */
export const consumers = ({ members, tickets, batches }: GameRules, { conn }: ServiceDeps<GameModels>): Subscription[] => {
  // Every write of a member or of the switches drops its cached copy once committed (members/rules.ts).
  const upsertMember = (e: TypedEvent<'member.joined' | 'member.role_changed'>) =>
    members.afterMemberWrite(e.teamId, e.data.member.id, () => consumeOnce(conn, CONSUMER, e, (s) => members.upsert(e.teamId, e.data.member, s))).then(() => {});
  return [
    on('member.joined', upsertMember),
    on('member.role_changed', upsertMember),
    on('member.removed', (e) => members.afterMemberWrite(e.teamId, e.data.member.id, () => consumeOnce(conn, CONSUMER, e, (s) => members.remove(e.teamId, e.data.member, s))).then(() => {})),
    on('member.preferences_updated', (e) =>
      members.afterMemberWrite(e.teamId, e.data.memberId, () => consumeOnce(conn, CONSUMER, e, (s) => members.setBoringMode(e.teamId, e.data.memberId, e.data.preferences.boringMode, s))).then(() => {}),
    ),
    on('feature_flags.updated', (e) => members.afterFlagsWrite(e.teamId, () => consumeOnce(conn, CONSUMER, e, (s) => members.setFlags(e.teamId, e.data.featureFlags, s))).then(() => {})),
    // Ticket snapshots, and the closes that pay the member who closed them (the event's actor), once
    // per ticket, ever: applied in micro-batches of what arrives together, one transaction each (tickets/batch.ts).
    on('ticket.created', (e) => batches.submit(e)),
    on('ticket.updated', (e) => batches.submit(e)),
    on('ticket.closed', (e) => batches.submit(e)),
    on('ticket.deleted', (e) => consumeOnce(conn, CONSUMER, e, (s) => tickets.markDeleted(e, e.data.ticketId, s)).then(() => {})),
  ];
};
