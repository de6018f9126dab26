import type { EventEnvelope } from '@helpdesk/contracts';
import type { TestPlatform, TeamKeys } from '../support/platform';
import { eventually, expectOk } from './helpdesk-helpers';

/** Every event ticketing publishes (tickets, automations, AI), for the file's lifetime. */
export class TicketingEvents {
  readonly events: EventEnvelope<any>[] = [];

  static async start(tp: TestPlatform): Promise<TicketingEvents> {
    const log = new TicketingEvents();
    await tp.observe('ticketing', ['ticket.#', 'automation.#', 'ai.#', 'ai_settings.#'], async (e: EventEnvelope) => {
      log.events.push(e as EventEnvelope<any>);
    });
    return log;
  }

  ofType(type: string): EventEnvelope<any>[] {
    return this.events.filter((e) => e.type === type);
  }

  /** Everything about one ticket (ticket events, and automation events naming it). */
  aboutTicket(ticketId: string): EventEnvelope<any>[] {
    return this.events.filter((e) => (e.data.ticket?.id ?? e.data.ticketId ?? e.data.execution?.ticketId) === ticketId);
  }

  /**
   * Proves nothing more is coming for earlier writes: a marker ticket in the second team, whose
   * `ticket.created` arrives after anything ticketing's outbox committed before it.
   */
  async settle(tp: TestPlatform): Promise<void> {
    const t = expectOk(await tp.api.post(`/teams/${tp.otherTeam.teamId}/tickets`, { title: 'marker' }, { key: tp.otherTeam.sk_test }), 201);
    await tp.platform.ticketing.relay.drain();
    await eventually('the marker event', () => this.events.some((e) => e.type === 'ticket.created' && e.data.ticket.id === t.id));
  }
}

/** The team's owner as a member id, once ticketing's member projection knows it (assignments check it). */
export async function knownOwner(tp: TestPlatform, team: TeamKeys): Promise<string> {
  const members = expectOk(await tp.api.get(`/teams/${team.teamId}/members`, { key: team.sk_test }), 200);
  const owner = members.find((m: any) => m.role === 'owner').id as string;
  await eventually('ticketing knows the owner', async () => {
    const known = await tp.platform.ticketing.conn.collection('member_refs').findOne({ _id: owner as any });
    return !!known;
  });
  return owner;
}
