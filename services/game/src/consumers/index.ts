import { consumeOnce, consumeOnceEmitting, on, type ServiceDeps, type Subscription, type TypedEvent } from '@helpdesk/kit';
import type { GameModels } from '../models';
import { oneAtATime } from '../one-at-a-time';
import type { GameRules } from '../rules';

/** The consumer name events are de-duplicated under (`processed_events`: `game:<event id>`). */
const CONSUMER = 'game';

/**
 * Everything the game service reacts to, in one list (queue `helpdesk.game`): the workspace's members
 * and switches, and the ticketing service's tickets (each partition feeds its own game world).
 */
export const consumers = ({ members, tickets, payouts }: GameRules, { conn }: ServiceDeps<GameModels>): Subscription[] => {
  // Every write of a member or of the switches drops its cached copy once committed (members/rules.ts).
  const upsertMember = (e: TypedEvent<'member.joined' | 'member.role_changed'>) =>
    members.afterMemberWrite(e.teamId, e.data.member.id, () => consumeOnce(conn, CONSUMER, e, (s) => members.upsert(e.teamId, e.data.member, s))).then(() => {});
  const recordTicket = (e: TypedEvent<'ticket.created' | 'ticket.updated'>) => consumeOnce(conn, CONSUMER, e, (s) => tickets.record(e, e.data.ticket, s).then(() => {})).then(() => {});
  return [
    on('member.joined', upsertMember),
    on('member.role_changed', upsertMember),
    on('member.removed', (e) => members.afterMemberWrite(e.teamId, e.data.member.id, () => consumeOnce(conn, CONSUMER, e, (s) => members.remove(e.teamId, e.data.member, s))).then(() => {})),
    on('member.preferences_updated', (e) =>
      members.afterMemberWrite(e.teamId, e.data.memberId, () => consumeOnce(conn, CONSUMER, e, (s) => members.setBoringMode(e.teamId, e.data.memberId, e.data.preferences.boringMode, s))).then(() => {}),
    ),
    on('feature_flags.updated', (e) => members.afterFlagsWrite(e.teamId, () => consumeOnce(conn, CONSUMER, e, (s) => members.setFlags(e.teamId, e.data.featureFlags, s))).then(() => {})),
    on('ticket.created', recordTicket),
    on('ticket.updated', recordTicket),
    on('ticket.deleted', (e) => consumeOnce(conn, CONSUMER, e, (s) => tickets.markDeleted(e, e.data.ticketId, s)).then(() => {})),
    // A close pays the member who closed it (the event's actor), once per ticket, ever.
    // A member's closes are paid one at a time in this process (they all write the member's player).
    on('ticket.closed', (e) =>
      oneAtATime(`${e.teamId}:${e.mode}:${e.actor.id}`, async () => {
        await consumeOnceEmitting(conn, CONSUMER, e, async (session, emit) => {
          const ticket = await tickets.record(e, e.data.ticket, session);
          if (e.actor.type === 'member' && e.actor.id) await payouts.pay(e, ticket, e.actor.id, session, emit);
        });
      }),
    ),
  ];
};
