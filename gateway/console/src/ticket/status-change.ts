import { useQueryClient } from '@tanstack/react-query';
import { api, HelpdeskError, type Ticket } from '../api/client';
import { keys, useUpdateTicket } from '../api/queries';
import { bossQueryOptions, isOff } from '../game/game-queries';
import { useSession } from '../api/session';
import { toast } from '../ui/toasts';

/**
 * Closing from the console hits the team's boss with the ticket, as the game's rules allow (a closed
 * customer ticket, once): the API keeps the close and the hit apart, the console makes them one
 * gesture. A ticket the game refuses (member-opened, imported, already hit, no boss) changes nothing.
 */
export function useStatusChange(ticket: Ticket) {
  const update = useUpdateTicket(ticket.id);
  const { teamId, can } = useSession();
  const qc = useQueryClient();
  /**
   * The game learns of the close from its event, a moment after the API answered: until then it calls
   * the ticket not closed (422) or unknown (404), so the hit is tried again for a few seconds.
   */
  const hitBoss = async (ticketId: string) => {
    const state = await qc.fetchQuery({ ...bossQueryOptions(teamId), staleTime: 5_000 }).catch(() => null);
    if (!state || isOff(state) || !state.active) return;
    for (let attempt = 1; attempt <= 8; attempt++) {
      try {
        const d = await api.data(api.POST('/teams/{teamId}/game/boss/damage', { params: { path: { teamId } }, body: { ticketId } }));
        void qc.invalidateQueries({ queryKey: keys.boss });
        toast(d.isKillingBlow ? 'Final blow! The boss is defeated.' : d.shieldBlocked ? 'The shield blocked most of the hit.' : `Hit the boss for ${d.damage} damage.`, d.isKillingBlow ? 'celebrate' : 'info');
        return;
      } catch (err) {
        const notYet = err instanceof HelpdeskError && (err.code === 'ticket_not_eligible' || err.code === 'resource_not_found');
        // Anything else (already hit, no boss, bosses off) ends it: the close stands alone.
        if (!notYet) return;
        await new Promise((r) => setTimeout(r, 150 * attempt));
      }
    }
  };
  return async (status: string) => {
    const updated = await update.mutateAsync({ status });
    if (status === 'closed' && updated.openedBy === 'customer' && updated.channel !== 'import' && can('game_participation')) {
      void hitBoss(ticket.id);
    }
    return updated;
  };
}
