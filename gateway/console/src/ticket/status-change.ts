import { useQueryClient } from '@tanstack/react-query';
import { api, type Ticket } from '../api/client';
import { keys, useUpdateTicket } from '../api/queries';
import { bossQueryOptions, isOff } from '../game/game-queries';
import { useSession } from '../api/session';
import { toast } from '../ui/toasts';

/**
 * Closing from the console hits the team's boss with the ticket, as the game's rules allow (a closed
 * customer ticket, once): the API keeps the close and the hit apart, the console makes them one
 * gesture. A ticket the game refuses (member-opened, already hit, no boss) changes nothing.
 */
export function useStatusChange(ticket: Ticket) {
  const update = useUpdateTicket(ticket.id);
  const { teamId, can } = useSession();
  const qc = useQueryClient();
  return async (status: string) => {
    const updated = await update.mutateAsync({ status });
    if ((status === 'closed' || status === 'resolved') && updated.openedBy === 'customer' && can('game_participation')) {
      try {
        const state = await qc.fetchQuery({ ...bossQueryOptions(teamId), staleTime: 5_000 });
        if (isOff(state) || !state.active) return updated;
        const d = await api.data(api.POST('/teams/{teamId}/game/boss/damage', { params: { path: { teamId } }, body: { ticketId: ticket.id } }));
        void qc.invalidateQueries({ queryKey: keys.boss });
        toast(d.isKillingBlow ? 'Final blow! The boss is defeated.' : d.shieldBlocked ? 'The shield blocked most of the hit.' : `Hit the boss for ${d.damage} damage.`, d.isKillingBlow ? 'celebrate' : 'info');
      } catch {
        // No boss up, bosses switched off, or a ticket the game does not count: the close stands alone.
      }
    }
    return updated;
  };
}
