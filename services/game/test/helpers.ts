import { randomUUID } from 'node:crypto';
import type { MemberSnapshot, TicketSnapshot, Partition } from '@helpdesk/contracts';
import { newId, type Clock } from '@helpdesk/kit';
import { envelope, startServiceHarness, ticketFixture, type ServiceHarness } from '@helpdesk/testing';
import { startGame, type GameRules } from '../src';

export { call, envelope, expectError, TEAM_A, TEAM_B } from '@helpdesk/testing';

export type Harness = ServiceHarness<GameRules> & { clock: TestClock };

/** The game's clock (kit's `Clock`), standing at `at` until a test moves it. */
export class TestClock implements Clock {
  constructor(public at: Date) {}
  now(): Date {
    return new Date(this.at.getTime());
  }
  advance(ms: number) {
    this.at = new Date(this.at.getTime() + ms);
  }
}

export const MINUTE = 60_000;
export const DAY = 86_400_000;

/** The game service on the shared harness, on a clock the test controls; records every game.* event. */
export async function startHarness(start = new Date('2026-11-24T10:00:00Z')): Promise<Harness> {
  const clock = new TestClock(start);
  const h = await startServiceHarness((opts) => startGame({ ...opts, clock }), { observe: ['game.#'] });
  return Object.assign(h, { clock });
}

/** Publishes `member.joined` for a new member of `teamId` and answers the member. */
export async function joinMember(h: Harness, teamId: string, name: string): Promise<MemberSnapshot> {
  const member: MemberSnapshot = {
    id: newId('member'), userId: randomUUID(), name, email: `${name.toLowerCase().replace(/\W+/g, '.')}@example.com`, avatarUrl: null, role: 'agent',
    roleDisplayName: 'Adventurer', permissions: ['game_participation'], level: 1, xp: 0, joinedAt: new Date().toISOString(),
  };
  await h.publish(envelope('member.joined', { member, via: 'invite', inviteId: null }, { teamId, mode: 'live' }));
  return member;
}

type Ticket = TicketSnapshot;

/** An SLA state of the given tier (the rule's other fields as ticketing fills them). */
export function slaOf(tier: 'gold' | 'silver' | 'bronze' | 'missed'): NonNullable<TicketSnapshot['sla']> {
  const target = { status: 'met' as const, targetMinutes: 60, dueAt: null, achievedAt: new Date().toISOString(), breachedAt: null, elapsedMinutes: 10 };
  return { ruleId: 'sla_rule00000001', ruleName: 'Default', use24x7: true, firstResponse: target, resolution: target, tier };
}

/** A ticket as ticketing's events carry it, opened by a customer through the widget unless told otherwise, created "now" on the game's clock. */
export const customerTicket = (h: Harness, fields: Partial<Ticket> = {}): Ticket => ({
  ...ticketFixture(null, { channel: 'widget', createdAt: h.clock.now().toISOString(), updatedAt: h.clock.now().toISOString() }),
  openedBy: 'customer',
  ...fields,
});

export interface Where {
  teamId: string;
  mode?: Partition;
}

/** `ticket.created` for the ticket. */
export async function created(h: Harness, t: Ticket, where: Where) {
  await h.publish(envelope('ticket.created', { ticket: t }, where));
}

function closeEvent(h: Harness, t: Ticket, memberId: string | null, where: Where) {
  const closed = { ...t, status: 'closed' as const, closedAt: h.clock.now().toISOString() };
  const e = envelope('ticket.closed', { ticket: closed, previousStatus: t.status }, where);
  e.actor = memberId ? { type: 'member', id: memberId } : { type: 'key', id: 'key_testkey0001' };
  return { closed, e };
}

/** `ticket.closed` of the ticket by `memberId` (the event's actor), as ticketing publishes it. */
export async function closedBy(h: Harness, t: Ticket, memberId: string | null, where: Where) {
  const { closed, e } = closeEvent(h, t, memberId, where);
  await h.publish(e);
  return closed;
}

/** `n` customer tickets created (one batch), then closed by the member one by one (closes of one member at once would only retry each other). */
export async function closeCustomerTickets(h: Harness, memberId: string, where: Where, n: number, fields: Partial<Ticket> = {}) {
  const tickets = Array.from({ length: n }, () => customerTicket(h, fields));
  await h.publish(...tickets.map((t) => envelope('ticket.created', { ticket: t }, where)));
  const closes = tickets.map((t) => closeEvent(h, t, memberId, where));
  for (const c of closes) await h.publish(c.e);
  return closes.map((c) => c.closed);
}

/** A customer ticket created and closed by the member. */
export async function closeCustomerTicket(h: Harness, memberId: string, where: Where, fields: Partial<Ticket> = {}) {
  const t = customerTicket(h, fields);
  await created(h, t, where);
  return closedBy(h, t, memberId, where);
}
