import type { TeamKeys, TestPlatform } from '../support/platform';
import { eventually, expectOk } from './helpdesk-helpers';

/** A ticket a customer opened (their words are the first message), through the API with `key`. */
export async function customerTicket(tp: TestPlatform, team: TeamKeys, key: string, priority = 'normal') {
  const body = { title: 'Cannot log in', priority, messages: [{ sender: 'customer', content: 'I cannot log in since this morning.' }] };
  return expectOk(await tp.api.post(`/teams/${team.teamId}/tickets`, body, { key }), 201);
}

/** Closes the ticket with `key` (a member's key: the member is the closer). */
export async function closeTicket(tp: TestPlatform, team: TeamKeys, key: string, ticketId: string) {
  return expectOk(await tp.api.patch(`/teams/${team.teamId}/tickets/${ticketId}`, { status: 'closed' }, { key }), 200);
}

/** The member's player stats once `check` holds (the game learns of closes from events). */
export async function playerWhen(tp: TestPlatform, team: TeamKeys, key: string, memberId: string, check: (p: any) => boolean, what = 'the player') {
  return eventually(what, async () => {
    const p = expectOk(await tp.api.get(`/teams/${team.teamId}/game/player/${memberId}`, { key }), 200);
    return check(p) ? p : null;
  });
}
