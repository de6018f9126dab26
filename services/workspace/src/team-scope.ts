import type { Scope } from '@helpdesk/kit';

/**
 * Members, invites and settings belong to the team, not to a partition (docs/adr/0012): a test key
 * and a live key see the same ones. They are stored under the live partition's scope, so kit's
 * fail-closed tenancy still guards every query; events keep the caller's own partition.
 */
export const teamScope = (ctx: { teamId: string }): Scope => ({ teamId: ctx.teamId, mode: 'live' });
