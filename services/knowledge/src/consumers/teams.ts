import { on, type Subscription } from '@helpdesk/kit';
import type { TeamRefRules } from '../teams/rules';

/** The team's slug, the help center's address (a new team's, then every change of it). */
export const teamSubscriptions = (teams: Pick<TeamRefRules, 'setSlug'>): Subscription[] => [
  on('member.joined', async (e) => {
    if (e.data.team) await teams.setSlug(e.teamId, e.data.team.slug, new Date(e.occurredAt));
  }),
  on('settings.updated', (e) => teams.setSlug(e.teamId, e.data.settings.teamSlug, new Date(e.occurredAt))),
];
