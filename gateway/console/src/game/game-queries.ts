import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, HelpdeskError } from '../api/client';
import { keys } from '../api/queries';
import { useSession } from '../api/session';

/**
 * The game's reads for the signed-in member. A feature the team switched off answers 403
 * `feature_disabled`: each hook then reads as `off` and its part of the console stays hidden.
 */

const off = (err: unknown) => err instanceof HelpdeskError && err.status === 403;
const OFF = Symbol('off');
type Off = typeof OFF;

async function orOff<T>(run: () => Promise<T>): Promise<T | Off> {
  try {
    return await run();
  } catch (err) {
    if (off(err)) return OFF;
    throw err;
  }
}

export const isOff = (v: unknown): v is Off => v === OFF;

export function usePlayer() {
  const { teamId, memberId } = useSession();
  return useQuery({
    queryKey: keys.player(memberId),
    queryFn: () => orOff(() => api.data(api.GET('/teams/{teamId}/game/player/{memberId}', { params: { path: { teamId, memberId } } }))),
  });
}

export function bossQueryOptions(teamId: string) {
  return {
    queryKey: keys.boss,
    queryFn: () => orOff(() => api.data(api.GET('/teams/{teamId}/game/boss', { params: { path: { teamId } } }))),
  };
}

export function useBoss() {
  const { teamId } = useSession();
  return useQuery(bossQueryOptions(teamId));
}

export function useQuests() {
  const { teamId } = useSession();
  return useQuery({
    queryKey: keys.quests,
    queryFn: () => orOff(() => api.data(api.GET('/teams/{teamId}/game/quests', { params: { path: { teamId } } }))),
  });
}

export function useClaimQuest() {
  const { teamId } = useSession();
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (questKey: string) => api.data(api.POST('/teams/{teamId}/game/quests/{questKey}/claim', { params: { path: { teamId, questKey } }, body: {} })),
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: keys.quests });
      void qc.invalidateQueries({ queryKey: ['game', 'player'] });
    },
  });
}

export function useLeaderboard(metric: 'xp' | 'tickets_closed' | 'boss_damage' = 'xp', period: 'season' | 'week' = 'season', limit = 10) {
  const { teamId } = useSession();
  return useQuery({
    queryKey: [...keys.leaderboard(metric, period), limit],
    queryFn: () => orOff(() => api.data(api.GET('/teams/{teamId}/game/leaderboard', { params: { path: { teamId }, query: { metric, period, limit } } }))),
  });
}

export function useAchievements() {
  const { teamId, memberId } = useSession();
  return useQuery({
    queryKey: ['game', 'achievements', memberId],
    queryFn: () => orOff(() => api.data(api.GET('/teams/{teamId}/game/achievements', { params: { path: { teamId }, query: { userId: memberId } } }))),
  });
}
