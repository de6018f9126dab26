import type mongoose from 'mongoose';
import { consumeOnceEmitting, type TypedEvent } from '@helpdesk/kit';
import type { TeamMemberRules } from '../members/rules';
import type { NotificationRules } from '../notifications/rules';
import { CONSUMER } from './consumer';

/**
 * The game's boss battles, announced to every member of the team (docs/adr/0032): `boss_spawned`
 * and `boss_defeated`. Members in boring mode get no game notifications.
 */
export function gameConsumers(conn: mongoose.Connection, members: TeamMemberRules, notifications: NotificationRules) {
  const players = members.players;
  return {
    async bossSpawned(e: TypedEvent<'game.boss.spawned'>) {
      const { boss } = e.data;
      await consumeOnceEmitting(conn, CONSUMER, e, async (session, emit) => {
        const drafts = (await players(e.teamId, session)).map((m) => ({
          memberId: m._id,
          type: 'boss_spawned' as const,
          title: `${boss.name} appeared (${boss.difficulty})`,
          body: `${e.data.ticketCount} customer tickets summoned a level ${boss.level} boss with ${boss.maxHealth} health. Close customer tickets and hit it!`,
          ticketId: null,
        }));
        await notifications.createFrom(e, drafts, session, emit);
      });
    },
    async bossDefeated(e: TypedEvent<'game.boss.defeated'>) {
      const { boss, rewards } = e.data;
      await consumeOnceEmitting(conn, CONSUMER, e, async (session, emit) => {
        const members = await players(e.teamId, session);
        const killer = members.find((m) => m._id === e.data.killedBy)?.name ?? 'A teammate';
        const drafts = members.map((m) => {
          const mine = rewards.find((r) => r.memberId === m._id);
          return {
            memberId: m._id,
            type: 'boss_defeated' as const,
            title: `${boss.name} was defeated`,
            body: `${killer} landed the killing blow.${mine ? ` Your share: ${mine.xp} XP and ${mine.gold} gold.` : ''}`,
            ticketId: null,
          };
        });
        await notifications.createFrom(e, drafts, session, emit);
      });
    },
  };
}
